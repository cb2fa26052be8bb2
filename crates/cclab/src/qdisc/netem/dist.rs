//! netem's delay distribution tables, generated here from the formulas of iproute2's
//! table generators (`netem/normal.c`, `netem/pareto.c`, `netem/paretonormal.c`, NIST Net's
//! public-domain code) — the tables themselves (`/usr/lib/tc/*.dist`) are not copied.
//!
//! A table holds the scaled inverse of a distribution's CDF at 4096 evenly spaced
//! probabilities, in units of σ/`NETEM_DIST_SCALE` (8192), clamped to an `s16`; netem's
//! `tabledist()` picks an entry with a uniform random number and scales it by the jitter.
//!
//! - **normal**: for x from −10 in steps of 0.00005 (accumulated in a `double`, as the C
//!   loop does) while x < 10.05, entry `rint(16384·Φ(x))` of a 16,385-slot array is set to
//!   x (the last x wins); every fourth slot (0, 4, …, 16380) becomes `rint(x·8192)`.
//! - **pareto** (shape a = 3): for i = 65536, 65520, …, 16, `(4/3)·8192·((i/65536)^(−1/a)
//!   − 1.5)`, at most 32767, rounded: a Pareto of scale 1 (mean a/(a − 1) = 1.5) shifted
//!   to mean 0 and scaled by 4/3.
//! - **paretonormal**: `(normal + 3·pareto)/4` entry by entry (C integer division, which
//!   truncates toward zero), the pareto entry taken at i = 65536 − 4·(normal slot).
//!
//! Φ needs `erf`, which Rust's standard library lacks: [`erf`] sums the series
//! erf(x) = 2/√π · e^(−x²) · Σ 2ⁿx^(2n+1)/(1·3···(2n+1)), whose terms are all positive (no
//! cancellation), to double precision; beyond |x| = 6 erf is ±1 in a double.

use std::sync::OnceLock;

/// `NETEM_DIST_SCALE` (`include/uapi/linux/pkt_sched.h`).
pub const DIST_SCALE: i64 = 8192;
/// Slots of the generators' Φ array (`TABLESIZE`).
const TABLESIZE: usize = 16384;
/// The Pareto shape of NIST Net's generators.
const PARETO_A: f64 = 3.0;

/// The named distributions of `tc … netem … distribution NAME`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dist {
    /// No table: netem's uniform jitter in [−σ, σ).
    Uniform,
    Normal,
    Pareto,
    ParetoNormal,
}

/// The names `distribution` takes (uniform is netem's default without a table).
pub const NAMES: &[&str] = &["uniform", "normal", "pareto", "paretonormal"];

impl Dist {
    pub fn from_name(s: &str) -> Option<Dist> {
        Some(match s {
            "uniform" => Dist::Uniform,
            "normal" => Dist::Normal,
            "pareto" => Dist::Pareto,
            "paretonormal" => Dist::ParetoNormal,
            _ => return None,
        })
    }

    /// The table, generated once per process (`None` for uniform).
    pub fn table(self) -> Option<&'static [i16]> {
        static NORMAL: OnceLock<Vec<i16>> = OnceLock::new();
        static PARETO: OnceLock<Vec<i16>> = OnceLock::new();
        static PARETONORMAL: OnceLock<Vec<i16>> = OnceLock::new();
        Some(match self {
            Dist::Uniform => return None,
            Dist::Normal => NORMAL.get_or_init(normal),
            Dist::Pareto => PARETO.get_or_init(pareto),
            Dist::ParetoNormal => PARETONORMAL.get_or_init(paretonormal),
        })
    }
}

/// erf(x) to double precision (see the module note).
pub fn erf(x: f64) -> f64 {
    if x < 0.0 {
        return -erf(-x);
    }
    if x >= 6.0 {
        return 1.0;
    }
    let x2 = x * x;
    let (mut term, mut sum, mut n) = (x, x, 0.0);
    loop {
        n += 1.0;
        term *= 2.0 * x2 / (2.0 * n + 1.0);
        sum += term;
        if term < sum * 1e-17 {
            break;
        }
    }
    (2.0 / std::f64::consts::PI.sqrt() * (-x2).exp() * sum).min(1.0)
}

/// `normal()` of the generators: the normal CDF Φ((x − μ)/σ) with μ = 0, σ = 1.
fn phi(x: f64) -> f64 {
    0.5 + 0.5 * erf(x / std::f64::consts::SQRT_2)
}

/// The x's of the generators' Φ array: slot `rint(16384·Φ(x))` holds the last x that
/// lands in it.
fn phi_slots() -> Vec<f64> {
    let mut t = vec![f64::NAN; TABLESIZE + 1];
    let mut x = -10.0f64;
    while x < 10.05 {
        let i = (TABLESIZE as f64 * phi(x)).round_ties_even() as usize;
        t[i] = x;
        x += 0.00005;
    }
    t
}

fn clamp16(v: i64) -> i16 {
    v.clamp(i16::MIN as i64, i16::MAX as i64) as i16
}

/// `normal.c`.
fn normal() -> Vec<i16> {
    let t = phi_slots();
    (0..TABLESIZE)
        .step_by(4)
        .map(|i| clamp16((t[i] * DIST_SCALE as f64).round_ties_even() as i64))
        .collect()
}

/// The Pareto entry for `i` in 1..=65536 (`pareto.c`'s loop body, `paretovalue()`).
fn pareto_value(i: i64) -> i64 {
    let d = i as f64 / 65536.0;
    let d = (1.0 / d.powf(1.0 / PARETO_A) - 1.5) * (4.0 / 3.0) * DIST_SCALE as f64;
    d.min(32767.0).round_ties_even() as i64
}

/// `pareto.c`: i = 65536 down to 16 in steps of 16.
fn pareto() -> Vec<i16> {
    (1..=4096i64)
        .rev()
        .map(|k| pareto_value(16 * k) as i16)
        .collect()
}

/// `paretonormal.c`.
fn paretonormal() -> Vec<i16> {
    let t = phi_slots();
    (0..TABLESIZE)
        .step_by(4)
        .map(|i| {
            let norm = (t[i] * DIST_SCALE as f64).round_ties_even() as i64;
            let par = pareto_value(65536 - 4 * i as i64);
            clamp16((norm + 3 * par) / 4)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// erf against values known to many digits: erf(0.5) = 0.5204998778130465,
    /// erf(1) = 0.8427007929497149, erf(2) = 0.9953222650189527 (Abramowitz & Stegun
    /// table 7.1).
    #[test]
    fn erf_matches_known_values() {
        for (x, e) in [
            (0.5, 0.520_499_877_813_046_5),
            (1.0, 0.842_700_792_949_714_9),
            (2.0, 0.995_322_265_018_952_7),
        ] {
            assert!((erf(x) - e).abs() < 1e-15, "erf({x}) = {}", erf(x));
            assert!((erf(-x) + e).abs() < 1e-15);
        }
    }

    /// Every table has 4096 entries and is sorted (an inverse CDF). Pareto by hand:
    /// the first entry (i = 65536) is (1 − 1.5)·(4/3)·8192 = −5461.33 → −5461; the last
    /// (i = 16) is (4096^(1/3) − 1.5)·10922.67 = 158,378 → clamped to 32767.
    #[test]
    fn tables_are_sorted_inverse_cdfs_of_4096_entries() {
        for d in [Dist::Normal, Dist::Pareto, Dist::ParetoNormal] {
            let t = d.table().unwrap();
            assert_eq!(t.len(), 4096, "{d:?}");
            assert!(t.windows(2).all(|w| w[0] <= w[1]), "{d:?} not sorted");
        }
        let p = Dist::Pareto.table().unwrap();
        assert_eq!((p[0], p[4095]), (-5461, 32767));
        // Slot 0 of Φ holds the last x with 16384·Φ(x) < 0.5, Φ(x) < 3.05e-5: x ≈ −4.01,
        // below the s16 range once scaled (−32,8xx), so normal's first entry is clamped to
        // −32768; paretonormal mixes the unclamped value 1:3 with pareto's −5461.
        let norm0 = (phi_slots()[0] * DIST_SCALE as f64).round_ties_even() as i64;
        assert!((-33_000..-32_768).contains(&norm0), "{norm0}");
        assert_eq!(Dist::Normal.table().unwrap()[0], i16::MIN);
        let pn = Dist::ParetoNormal.table().unwrap();
        assert_eq!(pn[0] as i64, (norm0 + 3 * -5461) / 4);
    }

    /// The normal table is a standard normal in units of σ/8192: mean 0 and standard
    /// deviation 8192 up to the discretisation (4096 quantiles; the tails beyond the
    /// first and last slot are cut off, which takes about 0.1% off σ).
    #[test]
    fn normal_table_has_mean_zero_and_sd_8192() {
        let t = Dist::Normal.table().unwrap();
        let n = t.len() as f64;
        let mean = t.iter().map(|&v| v as f64).sum::<f64>() / n;
        let sd = (t.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / n).sqrt();
        assert!(mean.abs() < 8192.0 * 0.01, "mean {mean}");
        assert!((sd / 8192.0 - 1.0).abs() < 0.01, "sd {sd}");
        // Symmetric about the median: slot 2048 is Φ = 1/2.
        assert!(t[2048].abs() <= 1, "{}", t[2048]);
    }
}
