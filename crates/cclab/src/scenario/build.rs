//! Builders for scenarios written in Rust (experiments, tests, benchmarks): the same
//! structures the TOML parser produces, with the same defaults.

use super::spec::*;
use crate::engine::SimTime;

impl Scenario {
    /// A stable id of this run: a hash of the resolved scenario (its source, or its full
    /// description when built in Rust), the seed and the contents of the files it reads
    /// (its traces: [`Scenario::inputs`]), so identical runs share it and tables of many
    /// runs can be concatenated and told apart. A scenario that reads no file has the id
    /// of its text and seed alone.
    pub fn run_id(&self) -> String {
        use crate::schema::{fnv1a, FNV_START};
        let text = if self.source.is_empty() {
            format!("{self:?}")
        } else {
            self.source.clone()
        };
        let mut h = fnv1a(
            FNV_START,
            text.bytes().chain(format!("\nseed={}", self.seed).bytes()),
        );
        for f in self.inputs() {
            h = fnv1a(h, format!("\n{}={:016x}", f.key, f.digest).bytes());
        }
        format!("{h:016x}")
    }

    /// The files the scenario read (its links' traces), each once, in the order of its
    /// links.
    pub fn inputs(&self) -> Vec<&crate::schema::InputFile> {
        let mut v: Vec<&crate::schema::InputFile> = Vec::new();
        for l in &self.link_rates {
            if let crate::qdisc::linkrate::RateSource::Trace(f, _) = &l.source {
                if !v.iter().any(|g| g.key == f.key) {
                    v.push(f);
                }
            }
        }
        v
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
