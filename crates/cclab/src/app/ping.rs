//! A ping probe: an ICMP echo every `interval` from one host to another through the same
//! queues as the traffic (as `ping -i`). The echo reply copies the request's TOS (Linux
//! `icmp_reply`), so an ECT request (`ping -Q`) gets an ECT reply.

use crate::engine::SimTime;

#[derive(Debug)]
pub struct PingProbe {
    pub from: u32,
    pub to: u32,
    pub from_name: String,
    pub to_name: String,
    pub start: SimTime,
    pub interval: SimTime,
    pub size: u32,
    pub ect: bool,
    pub dscp: u8,
    pub sent: u64,
    /// Round-trip times of the replies received, in order.
    pub rtts: Vec<SimTime>,
}

/// Summary statistics of RTT samples in seconds: (mean, median, p99, min, max, stddev).
pub fn summarize(samples: &[SimTime]) -> Option<[f64; 6]> {
    if samples.is_empty() {
        return None;
    }
    let mut v: Vec<f64> = samples.iter().map(|&t| crate::engine::secs(t)).collect();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    let pct = |q: f64| v[((q * (v.len() - 1) as f64).round() as usize).min(v.len() - 1)];
    Some([mean, pct(0.5), pct(0.99), v[0], v[v.len() - 1], var.sqrt()])
}
