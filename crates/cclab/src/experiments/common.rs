//! Pieces shared by experiments.

use crate::engine::SimTime;
use crate::scenario::*;

/// Socket buffers large enough never to limit a long fat flow (the seeds' "still need to
/// set the TCP buffer sizes!"): 256 MiB.
pub const BIG_BUF: u64 = 256 << 20;

/// The mean of a run's queue samples (packets) taken after `t` seconds; 0 without any.
pub fn mean_queue_after(res: &crate::results::RunResult, t: f64) -> f64 {
    let qs: Vec<f64> = res
        .series
        .queue
        .iter()
        .filter(|s| s.t > t)
        .map(|s| s.pkts as f64)
        .collect();
    qs.iter().sum::<f64>() / qs.len().max(1) as f64
}

/// Linux-default TCP with `cc` and large socket buffers.
pub fn tcp(cc: &str) -> TcpConfig {
    TcpConfig {
        cc: cc.into(),
        sndbuf: BIG_BUF,
        rcvbuf: BIG_BUF,
        ..Default::default()
    }
}

/// The bits port `port` has put on its wire so far, its link's framing included: the
/// busy time of its transmitter times its rate.
pub fn busy_bits(sim: &mut crate::sim::Sim, port: crate::net::PortId) -> f64 {
    let now = sim.q.now();
    let p = sim.net.port_now(port, now);
    (p.tx_bytes + p.tx_pkts * p.framing as u64) as f64 * 8.0
}

/// A single hop `src → dst` at `rate` with one-way delay `owd` and the given queue.
pub fn one_hop(rate: u64, owd: SimTime, queue: QueueSpec) -> TopologySpec {
    TopologySpec::Chain {
        hops: vec![LinkSpec {
            framing: crate::net::Framing::Ethernet,
            rate_bps: rate,
            delay: owd,
            queue,
        }],
    }
}

/// A dumbbell whose flow i has the round trip `rtts_ms[i]`: a bottleneck of `rate` with
/// one-way `delay` and a drop-tail `buffer`, access links at 10 × `rate` with drop-tail
/// `access_queue`, each sender's and receiver's link carrying a quarter of what its RTT
/// adds to the bottleneck's (RTT = 2 · (access + delay + access)).
pub fn rtt_dumbbell(
    rate: u64,
    delay: SimTime,
    buffer: Limit,
    access_queue: Limit,
    rtts_ms: impl Iterator<Item = u64>,
) -> TopologySpec {
    let access: Vec<SimTime> = rtts_ms
        .map(|r| (r * crate::engine::MS / 2 - delay) / 2)
        .collect();
    TopologySpec::Dumbbell {
        senders: access.len(),
        bottleneck: LinkSpec {
            framing: crate::net::Framing::Ethernet,
            rate_bps: rate,
            delay,
            queue: QueueSpec::droptail(buffer),
        },
        access_rate_bps: 10 * rate,
        access_delay: access,
        access_queue: QueueSpec::droptail(access_queue),
    }
}

/// Seed 001's lab: the sender's GbE NIC (1 ms, its qdisc `nic_queue`) → a bottleneck of
/// `rate` with 99 ms and a drop-tail buffer of `buffer` bytes → `dst`: RTT 200 ms.
pub fn lfn_lab(nic_queue: Limit, rate: u64, buffer: u64) -> TopologySpec {
    lfn_lab_nic(1_000_000_000, nic_queue, rate, buffer)
}

/// [`lfn_lab`] with the sender's NIC at `nic` bit/s.
pub fn lfn_lab_nic(nic: u64, nic_queue: Limit, rate: u64, buffer: u64) -> TopologySpec {
    nic_path(
        (nic, crate::engine::MS, nic_queue),
        (rate, 99 * crate::engine::MS, Limit::Bytes(buffer)),
    )
}

/// `src` → the sender's NIC hop (rate, one-way delay, its qdisc's drop-tail limit) → a
/// bottleneck hop (rate, delay, its drop-tail buffer) → `dst`, Ethernet framing.
pub fn nic_path(nic: (u64, SimTime, Limit), bottleneck: (u64, SimTime, Limit)) -> TopologySpec {
    let hop = |(rate_bps, delay, limit)| LinkSpec {
        framing: crate::net::Framing::Ethernet,
        rate_bps,
        delay,
        queue: QueueSpec::droptail(limit),
    };
    TopologySpec::Chain {
        hops: vec![hop(nic), hop(bottleneck)],
    }
}

/// Wire bytes per full-sized packet at this MTU (IP + Ethernet framing).
pub fn wire_bytes(mtu: u32) -> u64 {
    (mtu + crate::net::ETH_OVERHEAD) as u64
}

/// Maximum TCP goodput of a link: payload share of each frame (1448 of 1538 at MTU 1500).
pub fn max_goodput(rate_bps: u64, mtu: u32) -> f64 {
    rate_bps as f64 * crate::tcp::sender::payload_mss(mtu) as f64 / wire_bytes(mtu) as f64
}

/// Mathis et al. (1997) for periodic loss: the average window is sqrt(3/2)/sqrt(p)
/// segments per round trip.
pub fn mathis_window(p: f64) -> f64 {
    1.5f64.sqrt() / p.sqrt()
}

/// A window of `w` full segments per round trip `rtt` as TCP goodput in bit/s (payload of
/// the MTU's MSS), capped at the link's payload capacity.
pub fn window_bps(w: f64, rate: u64, rtt: SimTime, mtu: u32) -> f64 {
    let mss_bits = crate::tcp::sender::payload_mss(mtu) as f64 * 8.0;
    (w * mss_bits / crate::engine::secs(rtt)).min(max_goodput(rate, mtu))
}

/// How a lossy path drops data packets.
#[derive(Clone, Copy, Debug)]
pub enum Loss {
    /// Each data packet independently with probability p (Bernoulli).
    Random(f64),
    /// Every n-th data packet (the seeds' kernel dropper: "drop 1 in 25,000").
    Every(u64),
}

impl Loss {
    /// The loss rate.
    pub fn p(&self) -> f64 {
        match *self {
            Loss::Random(p) => p,
            Loss::Every(n) => 1.0 / n as f64,
        }
    }
}

/// One flow over a single hop at `rate` with round trip `rtt`, losing data packets on the
/// way (never ACKs), behind a drop-tail buffer of one bandwidth-delay product (at least
/// 100 packets) so that a window larger than the pipe meets a real router's limit.
#[derive(Clone, Debug)]
pub struct LossyPath {
    pub tcp: TcpConfig,
    pub rate: u64,
    pub rtt: SimTime,
    pub loss: Loss,
    pub dur: SimTime,
    /// Goodput is measured after this (the slow-start overshoot is not the steady state).
    pub warm: SimTime,
    pub seed: u64,
    /// Sample cwnd at this interval (`RunResult::series.cwnd`).
    pub cwnd_interval: Option<SimTime>,
    /// Drop on the sender's NIC of this rate, ahead of the bottleneck (netem `loss` on the
    /// sender's qdisc), instead of on the bottleneck after it: a lost packet then takes
    /// none of the bottleneck's capacity. `None`: on the bottleneck (the default).
    pub loss_before: Option<u64>,
}

/// What a lossy-path run gives.
pub struct LossyOutcome {
    pub result: crate::results::RunResult,
    /// Goodput (bit/s) from `warm` to the end.
    pub steady_bps: f64,
    /// Goodput (bit/s) over the whole run, slow start included (what iperf reports).
    pub mean_bps: f64,
}

impl LossyPath {
    /// `cc` with large socket buffers, a 10% warm-up, no cwnd samples.
    pub fn new(cc: &str, rate: u64, rtt: SimTime, loss: Loss, dur: SimTime) -> LossyPath {
        LossyPath {
            tcp: tcp(cc),
            rate,
            rtt,
            loss,
            dur,
            warm: dur / 10,
            seed: 1,
            cwnd_interval: None,
            loss_before: None,
        }
    }

    /// The buffer: one BDP of full-sized packets at this path's MTU, at least 100.
    pub fn buffer_pkts(&self) -> u64 {
        let bdp = self.rate as f64 * crate::engine::secs(self.rtt)
            / (8.0 * wire_bytes(self.tcp.mtu) as f64);
        (bdp.round() as u64).max(100)
    }

    pub fn run(&self) -> LossyOutcome {
        let buffer = Limit::Packets(self.buffer_pkts());
        let topo = match self.loss_before {
            None => one_hop(self.rate, self.rtt / 2, QueueSpec::droptail(buffer)),
            // The NIC's qdisc: Linux's txqueuelen 1000.
            Some(nic) => nic_path(
                (nic, 0, Limit::Packets(1000)),
                (self.rate, self.rtt / 2, buffer),
            ),
        };
        let mut sc = Scenario::new("lossy-path", topo, self.dur);
        sc.seed = self.seed;
        sc.add_default_flows(&self.tcp);
        let (rate, every) = match self.loss {
            Loss::Random(p) => (p, 0),
            Loss::Every(n) => (0.0, n),
        };
        sc.losses.push(LossSpec {
            link: "hop0".into(),
            rate,
            drop_nth: vec![],
            every,
        });
        sc.output.cwnd_interval = self.cwnd_interval;
        let mut sim = crate::sim::Sim::new(&sc).expect("valid scenario");
        sim.run_until(self.warm);
        let b0 = sim.tcp(0).receiver.delivered_bytes;
        sim.run();
        let b1 = sim.tcp(0).receiver.delivered_bytes;
        let secs = crate::engine::secs;
        LossyOutcome {
            steady_bps: (b1 - b0) as f64 * 8.0 / secs(self.dur - self.warm),
            mean_bps: b1 as f64 * 8.0 / secs(self.dur),
            result: sim.results(),
        }
    }
}

/// A mean over independent runs with its 95% confidence interval (Student's t).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeanCi {
    pub mean: f64,
    /// Half-width of the 95% interval: mean ± half. Infinite for one run.
    pub half: f64,
    pub n: usize,
}

impl MeanCi {
    /// One value (one run, or arithmetic): judged as it is.
    pub fn one(x: f64) -> MeanCi {
        MeanCi {
            mean: x,
            half: f64::INFINITY,
            n: 1,
        }
    }
}

/// Two-sided 95% quantiles of Student's t for 1…30 degrees of freedom (any statistics
/// table, e.g. NIST/SEMATECH e-Handbook §1.3.6.7.2); 1.96 beyond.
const T975: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
    2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
    2.052, 2.048, 2.045, 2.042,
];

/// The median of `xs` (the mean of the two middle values for an even count; NaNs sort
/// last). Panics on an empty slice.
pub fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// The difference of the means of two sets of independent runs, mean(a) − mean(b), with
/// its 95% interval: Welch's standard error with t at the smaller set's n − 1 degrees of
/// freedom (conservative: Welch–Satterthwaite's are at least that).
pub fn diff_ci(a: &[f64], b: &[f64]) -> MeanCi {
    let (ma, mb) = (mean_ci(a), mean_ci(b));
    let var = |xs: &[f64], m: f64| {
        xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (xs.len().max(2) - 1) as f64
    };
    let n = a.len().min(b.len());
    let half = if n < 2 {
        f64::INFINITY
    } else {
        let se = (var(a, ma.mean) / a.len() as f64 + var(b, mb.mean) / b.len() as f64).sqrt();
        T975.get(n - 2).copied().unwrap_or(1.96) * se
    };
    MeanCi {
        mean: ma.mean - mb.mean,
        half,
        n,
    }
}

/// Mean and 95% confidence interval of independent samples `xs` (sample standard
/// deviation, t with n − 1 degrees of freedom).
pub fn mean_ci(xs: &[f64]) -> MeanCi {
    let n = xs.len();
    let mean = xs.iter().sum::<f64>() / n as f64;
    if n < 2 {
        return MeanCi {
            mean,
            half: f64::INFINITY,
            n,
        };
    }
    if xs.iter().all(|&x| x == xs[0]) {
        // Identical runs: no spread (and no rounding residue from the sum).
        return MeanCi {
            mean: xs[0],
            half: 0.0,
            n,
        };
    }
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    let t = T975.get(n - 2).copied().unwrap_or(1.96);
    MeanCi {
        mean,
        half: t * (var / n as f64).sqrt(),
        n,
    }
}

/// The sample standard deviation of `xs` over their mean (0 for one run or a mean ≤ 0).
pub fn nsd(xs: &[f64]) -> f64 {
    let n = xs.len();
    let mean = xs.iter().sum::<f64>() / n as f64;
    if n < 2 || mean <= 0.0 {
        return 0.0;
    }
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    var.sqrt() / mean
}

/// Is spread `x` (σ's estimate, scaled by its interval factors `xlo`, `xhi` of
/// [`sd_factors`]) smaller than `y` (`ylo`, `yhi`)? `Within` when the two 95% intervals
/// lie apart with `x`'s below, `Outside` when apart with it above, `Open` when they overlap.
pub fn spread_smaller(
    x: f64,
    (xlo, xhi): (f64, f64),
    y: f64,
    (ylo, yhi): (f64, f64),
) -> super::verdict::Reading {
    use super::verdict::Reading;
    if x * xhi < y * ylo {
        Reading::Within
    } else if x * xlo > y * yhi {
        Reading::Outside
    } else {
        Reading::Open
    }
}

/// The 95% interval of σ from the sample standard deviation of `n` runs, as factors of
/// it: √((n−1)/χ²₀.₉₇₅) and √((n−1)/χ²₀.₀₂₅) with n − 1 degrees of freedom (for n = 2 … 5:
/// 0.446 … 31.9, 0.521 … 6.29, 0.566 … 3.73, 0.599 … 2.87, as any χ² table gives, e.g.
/// NIST/SEMATECH e-Handbook §1.3.6.7.4).
pub fn sd_factors(n: usize) -> (f64, f64) {
    if n < 2 {
        return (0.0, f64::INFINITY);
    }
    let k = (n - 1) as f64;
    (
        (k / chi2_quantile(0.975, k)).sqrt(),
        (k / chi2_quantile(0.025, k)).sqrt(),
    )
}

/// The `p` quantile of χ² with `k` degrees of freedom (bisection on its distribution).
fn chi2_quantile(p: f64, k: f64) -> f64 {
    let (mut lo, mut hi) = (0.0, k + 40.0 * (2.0 * k).sqrt() + 100.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if gamma_p(k / 2.0, mid / 2.0) < p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The regularized lower incomplete gamma function P(a, x) (series below a + 1, Lentz's
/// continued fraction for its complement above: Numerical Recipes §6.2).
fn gamma_p(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    let front = (-x + a * x.ln() - ln_gamma(a)).exp();
    if x < a + 1.0 {
        let (mut term, mut sum, mut ap) = (1.0 / a, 1.0 / a, a);
        for _ in 0..10_000 {
            ap += 1.0;
            term *= x / ap;
            sum += term;
            if term.abs() < sum.abs() * 1e-16 {
                break;
            }
        }
        (sum * front).min(1.0)
    } else {
        let tiny = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / tiny;
        let mut dd = 1.0 / b;
        let mut h = dd;
        for i in 1..10_000 {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            dd = an * dd + b;
            if dd.abs() < tiny {
                dd = tiny;
            }
            c = b + an / c;
            if c.abs() < tiny {
                c = tiny;
            }
            dd = 1.0 / dd;
            let del = dd * c;
            h *= del;
            if (del - 1.0).abs() < 1e-16 {
                break;
            }
        }
        (1.0 - front * h).max(0.0)
    }
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9).
fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = G[0];
    let t = x + 7.5;
    for (i, g) in G.iter().enumerate().skip(1) {
        a += g / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// The seeds of `n` independent runs derived from the master seed `seed`: run i uses
/// seed + i, so `--seed` moves every run and run 0 is the single-run result.
pub fn run_seeds(seed: u64, n: usize) -> Vec<u64> {
    (0..n as u64).map(|i| seed.wrapping_add(i)).collect()
}

/// Every variant with each of its `n` run seeds, variant by variant: the runs of variant
/// `i` are items `i·n .. (i+1)·n`.
pub fn variant_runs<V: Copy>(variants: &[V], seed: u64, n: usize) -> Vec<(V, u64)> {
    variants
        .iter()
        .flat_map(|&v| run_seeds(seed, n).into_iter().map(move |s| (v, s)))
        .collect()
}

#[cfg(test)]
mod ci_tests {
    use super::*;

    #[test]
    fn confidence_interval_matches_the_textbook() {
        // Five samples 1..5: mean 3, s = sqrt(2.5), t(4) = 2.776 → ±1.963.
        let c = mean_ci(&[1.0, 2.0, 3.0, 4.0, 5.0]);
        assert_eq!(c.mean, 3.0);
        assert!((c.half - 2.776 * (2.5f64 / 5.0).sqrt()).abs() < 1e-12);
        assert!((c.half - 1.963).abs() < 1e-3);
        assert!(mean_ci(&[7.0]).half.is_infinite());
        assert_eq!(mean_ci(&[2.0, 2.0, 2.0]).half, 0.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_of_a_mean_and_of_a_difference() {
        // Hand-worked: [1, 2, 3] has s² = 1; t(2 d.f.) = 4.303, so ±4.303·√(1/3) = ±2.484.
        let m = mean_ci(&[1.0, 2.0, 3.0]);
        assert!((m.mean - 2.0).abs() < 1e-12 && (m.half - 2.4844).abs() < 1e-4);
        // The difference from [0, 0, 0] (s² = 0): the same interval around 2.
        let d = diff_ci(&[1.0, 2.0, 3.0], &[0.0, 0.0, 0.0]);
        assert!((d.mean - 2.0).abs() < 1e-12 && (d.half - 2.4844).abs() < 1e-4);
        // Both spread: √(1/3 + 1/3) · 4.303 = 3.513.
        let d = diff_ci(&[1.0, 2.0, 3.0], &[0.0, 1.0, 2.0]);
        assert!((d.mean - 1.0).abs() < 1e-12 && (d.half - 3.5134).abs() < 1e-4);
        // One run: no interval.
        assert!(diff_ci(&[1.0], &[0.0]).half.is_infinite());
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
    }

    #[test]
    fn sd_interval_factors_match_the_tables() {
        // χ² tables (NIST/SEMATECH e-Handbook §1.3.6.7.4) for n = 2 … 5 runs.
        for (n, lo, hi) in [
            (2, 0.446, 31.9),
            (3, 0.521, 6.29),
            (4, 0.566, 3.73),
            (5, 0.599, 2.87),
        ] {
            let (a, b) = sd_factors(n);
            assert!(
                (a - lo).abs() < 0.001 && (b / hi - 1.0).abs() < 0.003,
                "{n}: {a} {b}"
            );
        }
        // χ²₀.₉₇₅ and χ²₀.₀₂₅ with 30 degrees of freedom: 46.979 and 16.791.
        assert!((chi2_quantile(0.975, 30.0) - 46.979).abs() < 0.002);
        assert!((chi2_quantile(0.025, 30.0) - 16.791).abs() < 0.002);
    }
}

/// Full-sized packets per second a link of `rate_bps` carries at MTU 1500 (1538 wire bytes).
pub fn link_pps(rate_bps: u64) -> f64 {
    rate_bps as f64 / (8.0 * wire_bytes(1500) as f64)
}

/// The BDP of a path of `rate_bps` and round trip `rtt`, in full-sized packets.
pub fn bdp_pkts(rate_bps: u64, rtt: SimTime) -> f64 {
    link_pps(rate_bps) * crate::engine::secs(rtt)
}

/// BBR's PROBE_RTT episodes as a run sampled every ms sees them: (entry, when inflight
/// reached PROBE_RTT's floor, exit), in seconds.
#[derive(Clone, Debug, Default)]
pub struct ProbeRttEpisodes {
    pub done: Vec<(f64, f64, f64)>,
    open: Option<(f64, f64)>,
}

/// What one sample of [`ProbeRttEpisodes`] was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EpisodeSample {
    /// Outside PROBE_RTT, and it was outside before.
    Out,
    /// PROBE_RTT began at this sample.
    Entered,
    /// Inside PROBE_RTT; `at_floor`: inflight has reached its floor (at this sample or
    /// earlier).
    In { at_floor: bool },
    /// PROBE_RTT ended at this sample.
    Exited,
}

impl ProbeRttEpisodes {
    /// The sample at `now`: in PROBE_RTT or not, and inflight at or under its floor.
    pub fn sample(&mut self, now: f64, in_probe_rtt: bool, at_floor: bool) -> EpisodeSample {
        match (in_probe_rtt, self.open) {
            (true, None) => {
                self.open = Some((now, f64::NAN));
                EpisodeSample::Entered
            }
            (true, Some((e, floor))) => {
                if floor.is_nan() && at_floor {
                    self.open = Some((e, now));
                }
                EpisodeSample::In {
                    at_floor: !floor.is_nan(),
                }
            }
            (false, Some((e, floor))) => {
                self.done.push((e, floor, now));
                self.open = None;
                EpisodeSample::Exited
            }
            (false, None) => EpisodeSample::Out,
        }
    }
}
