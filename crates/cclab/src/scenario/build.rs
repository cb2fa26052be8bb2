//! Builders for scenarios written in Rust (experiments, tests, benchmarks): the same
//! structures the TOML parser produces, with the same defaults.

use super::spec::*;
use crate::engine::SimTime;

impl Scenario {
    /// An empty scenario on `topology` running for `duration`.
    pub fn new(name: &str, topology: TopologySpec, duration: SimTime) -> Scenario {
        Scenario {
            name: name.to_string(),
            duration,
            seed: 1,
            topology,
            apps: Default::default(),
            losses: Vec::new(),
            output: OutputSpec::default(),
        }
    }

    /// Add a bulk flow for the whole run; returns its index.
    pub fn add_flow(&mut self, from: &str, to: &str, tcp: TcpConfig) -> usize {
        self.apps.flows.push(FlowSpec {
            from: from.into(),
            to: to.into(),
            start: 0,
            stop: None,
            bytes: None,
            tcp,
        });
        self.apps.flows.len() - 1
    }

    /// One bulk flow per sender (the default when a TOML file names none).
    pub fn add_default_flows(&mut self, tcp: &TcpConfig) {
        for (f, t) in self.topology.default_pairs() {
            self.add_flow(&f, &t, tcp.clone());
        }
    }
}

impl TopologySpec {
    /// A single path `src → r0 → dst`: an access hop at `access_rate`, then the bottleneck
    /// hop with `queue`; the one-way delay `owd` split evenly between the hops.
    pub fn path(access_rate: u64, rate: u64, owd: SimTime, queue: QueueSpec) -> TopologySpec {
        TopologySpec::Chain {
            hops: vec![
                LinkSpec {
                    framing: crate::net::Framing::Ethernet,
                    rate_bps: access_rate,
                    delay: owd / 2,
                    queue: QueueSpec::droptail(Limit::Packets(100_000)),
                },
                LinkSpec {
                    framing: crate::net::Framing::Ethernet,
                    rate_bps: rate,
                    delay: owd - owd / 2,
                    queue,
                },
            ],
        }
    }
}
