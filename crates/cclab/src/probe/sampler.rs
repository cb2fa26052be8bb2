//! Time series sampled every fixed interval (`[output]`): each flow's cwnd, ssthresh,
//! smoothed RTT and packets in flight (`cwnd`); its congestion control's own state
//! (`cc`: what `CongestionOps::state` gives, read only here); the length of chosen queues (`queue`,
//! the bottleneck or every forward hop unless `queues` names them); each flow's delivered
//! throughput over the interval (`throughput`). The flows sampled are the connections
//! built with the world (`[[flow]]`, an aggregate's workers), not a workload's.

use crate::cc::state::MAX_STATE_VARS;
use crate::cc::CongestionOps;
use crate::conn::Conn;
use crate::engine::{secs, SimTime};
use crate::net::{Network, PortId};
use crate::results::{CcSample, CwndSample, QueueSample, Series, ThroughputSample};
use crate::tcp::sender::SndState;

/// Which series a sampling event is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeriesKind {
    Cwnd,
    Queue,
    Throughput,
    Cc,
}

impl SeriesKind {
    pub const ALL: [SeriesKind; 4] = [
        SeriesKind::Cwnd,
        SeriesKind::Queue,
        SeriesKind::Throughput,
        SeriesKind::Cc,
    ];
}

#[derive(Default)]
pub struct Sampler {
    /// Interval of each series (in `SeriesKind::ALL` order), if on.
    pub intervals: [Option<SimTime>; 4],
    /// No sample after this time.
    pub end: SimTime,
    pub ports: Vec<PortId>,
    /// When each connection starts (no cwnd sample before): the connections built with
    /// the world, the ones sampled (a workload's flows come and go; their rows are in the
    /// `flows` and `fct` tables).
    pub starts: Vec<SimTime>,
    last_delivered: Vec<u64>,
}

impl Sampler {
    pub fn new(
        intervals: [Option<SimTime>; 4],
        end: SimTime,
        ports: Vec<PortId>,
        starts: Vec<SimTime>,
    ) -> Sampler {
        let n = starts.len();
        Sampler {
            intervals,
            end,
            ports,
            starts,
            last_delivered: vec![0; n],
        }
    }

    pub fn interval(&self, k: SeriesKind) -> Option<SimTime> {
        self.intervals[k as usize]
    }

    /// Take the samples of series `k` at `now`; returns when to sample next.
    pub fn sample(
        &mut self,
        k: SeriesKind,
        now: SimTime,
        conns: &[Conn],
        net: &Network,
        out: &mut Series,
    ) -> Option<SimTime> {
        let t = secs(now);
        let iv = self.interval(k);
        match k {
            SeriesKind::Cwnd => {
                for (i, c) in conns[..self.starts.len()].iter().enumerate() {
                    let Some(c) = c.tcp() else { continue };
                    if now < self.starts[i] {
                        continue;
                    }
                    let s = &c.sender;
                    out.cwnd.push(CwndSample {
                        t,
                        flow: i as u32,
                        cwnd: s.tp.snd_cwnd,
                        ssthresh: s.tp.snd_ssthresh.min(1 << 30),
                        srtt_s: secs(s.rtt.srtt()),
                        in_flight: s.in_flight(),
                    });
                }
            }
            SeriesKind::Cc => {
                let mut v = [0.0; MAX_STATE_VARS];
                for (i, c) in conns[..self.starts.len()].iter().enumerate() {
                    // Once the algorithm is initialised (`init`, at the handshake's end).
                    let Some(c) = c.tcp() else { continue };
                    let s = &c.sender;
                    if s.state != SndState::Established {
                        continue;
                    }
                    let vars = s.cc.state_vars();
                    let v = &mut v[..vars.len()];
                    s.cc.state(&s.tp, v);
                    let cc = s.cc.name();
                    out.cc
                        .extend(vars.iter().zip(v.iter()).map(|(var, &value)| CcSample {
                            t,
                            flow: i as u32,
                            cc,
                            name: var.name,
                            value,
                            label: var.label(value),
                        }));
                }
            }
            SeriesKind::Queue => {
                for &pid in &self.ports {
                    let p = &net.port(pid);
                    let b = p.backlog();
                    out.queue.push(QueueSample {
                        t,
                        queue: p.name.clone(),
                        bytes: b.bytes,
                        pkts: b.pkts,
                    });
                }
            }
            SeriesKind::Throughput => {
                let dt = secs(iv.unwrap_or(1));
                if now > 0 {
                    for (i, c) in conns[..self.starts.len()].iter().enumerate() {
                        let d = c.delivered_bytes();
                        let bps = (d - self.last_delivered[i]) as f64 * 8.0 / dt;
                        self.last_delivered[i] = d;
                        out.throughput.push(ThroughputSample {
                            t,
                            flow: i as u32,
                            goodput_bps: bps,
                        });
                    }
                }
            }
        }
        let next = now + iv?;
        (next <= self.end).then_some(next)
    }
}
