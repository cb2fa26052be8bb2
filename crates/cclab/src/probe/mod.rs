//! Probes: what watches a run without changing it. Each is off unless the scenario asks
//! for it, and costs a branch when off.
//!
//! - `pcap` — libpcap captures of hosts and links (`[output] pcap`, `--pcap`), fed by the
//!   network's [`Tap`](crate::net::Tap) hooks;
//! - `tsg` — tcptrace-style time-sequence traces of chosen flows (`[output] tsg`);
//! - `rtt` — every flow's RTT samples in a log histogram (mean and p99 in the results);
//! - `sampler` — time series sampled at fixed intervals: cwnd, queue lengths, throughput
//!   (`[output] cwnd/queue/throughput`).

pub mod pcap;
pub mod rtt;
pub mod sampler;
pub mod tsg;

use crate::results::Series;

/// The probes of one run.
#[derive(Default)]
pub struct Probes {
    /// pcap capture; `None` costs one branch per hop.
    pub capture: Option<Box<pcap::Capture>>,
    pub tsg: tsg::Tsg,
    pub rtt: rtt::RttProbe,
    pub sampler: sampler::Sampler,
    /// What the trace and sampling probes recorded.
    pub series: Series,
}
