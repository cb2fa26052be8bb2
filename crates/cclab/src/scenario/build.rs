//! Builders for scenarios written in Rust (experiments, tests, benchmarks): the same
//! structures the TOML parser produces, with the same defaults.

use super::spec::*;
use crate::engine::SimTime;

impl Scenario {
    /// A stable id of this run: a hash of the resolved scenario (its source, or its full
    /// description when built in Rust) and the seed, so identical runs share it and
    /// tables of many runs can be concatenated and told apart.
    pub fn run_id(&self) -> String {
        let text = if self.source.is_empty() {
            format!("{self:?}")
        } else {
            self.source.clone()
        };
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in text.bytes().chain(format!("\nseed={}", self.seed).bytes()) {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        format!("{h:016x}")
    }

    /// An empty scenario on `topology` running for `duration`.
    pub fn new(name: &str, topology: TopologySpec, duration: SimTime) -> Scenario {
        Scenario {
            name: name.to_string(),
            source: String::new(),
            duration,
            seed: 1,
            topology,
            apps: Default::default(),
            losses: Vec::new(),
            policers: Vec::new(),
            host: HostSpec::default(),
            output: OutputSpec::default(),
            link_rates: Vec::new(),
            events: Vec::new(),
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
