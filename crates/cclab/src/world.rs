//! Building a world from a scenario: the network (topology, loss injection), one
//! connection per flow and per aggregate worker, the apps that drive them, the probes the
//! output section asks for, and each app's first wake-ups.
//!
//! Everything is numbered in scenario order — connections in the order of `[[flow]]`
//! then of the `[[aggregate]]` workers, apps likewise, then pings — so the same scenario
//! always schedules the same events in the same order.

use crate::app::{bulk::Bulk, ping::Ping, reqresp::ReqResp, AnyApp, App};
use crate::engine::{Rng, SimTime};
use crate::net::{flow_hash, topology, LinkLoss, NodeId, PortId};
use crate::probe::sampler::{Sampler, SeriesKind};
use crate::probe::{rtt::RttProbe, tsg::Tsg};
use crate::scenario::{Scenario, TcpConfig};
use crate::sim::{ConnMeta, Ev, Sim};
use crate::tcp::{Addr, TcpConn};
use crate::transport::{Conn, PortAllocator};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Stream ids for `Rng::new(seed, stream)`.
const STREAM_LINK_LOSS: u64 = 1 << 32;

/// Service ports: iperf3's for bulk flows, HTTP's for request/response.
const BULK_PORT: u16 = 5201;
const REQRESP_PORT: u16 = 80;

/// What a new connection needs beyond its two hosts.
struct ConnReq<'a> {
    from: &'a str,
    to: &'a str,
    service: u16,
    tcp: &'a TcpConfig,
    bytes: Option<u64>,
    start: SimTime,
    stop: Option<SimTime>,
    app: u32,
}

struct Builder {
    hosts: BTreeMap<String, NodeId>,
    ports: PortAllocator,
    /// The configuration of the previous connection: the next one shares it when equal.
    last_tcp: Option<Arc<TcpConfig>>,
}

impl Builder {
    fn host(&self, name: &str) -> Result<NodeId, String> {
        self.hosts
            .get(name)
            .copied()
            .ok_or_else(|| format!("unknown host '{name}'"))
    }

    /// Add a connection `from → to` to `sim`; returns its index.
    fn conn(&mut self, sim: &mut Sim, r: ConnReq) -> Result<u32, String> {
        let (client, server) = (self.host(r.from)?, self.host(r.to)?);
        let conn = sim.conns.len() as u32;
        let (sport, dport) = self.ports.allocate(client, server, r.service);
        let addr = Addr {
            client,
            server,
            conn,
            sport,
            dport,
            hash: flow_hash(client, server, sport, dport, 6),
            dscp: r.tcp.dscp,
        };
        for (a, z) in [(client, server), (server, client)] {
            if !sim.net.reaches(a, z, addr.hash) {
                return Err(format!(
                    "connection {conn} ({} → {}): no route from {} to {} (hosts do not forward; is a link missing?)",
                    r.from, r.to, sim.net.nodes[a as usize].name, sim.net.nodes[z as usize].name
                ));
            }
        }
        let cfg = match &self.last_tcp {
            Some(c) if **c == *r.tcp => Arc::clone(c),
            _ => Arc::new(r.tcp.clone()),
        };
        self.last_tcp = Some(Arc::clone(&cfg));
        let c = TcpConn::new(addr, &cfg, r.start, r.bytes)
            .map_err(|e| format!("connection {conn} ({} → {}): {e}", r.from, r.to))?;
        sim.conns.push(Conn::Tcp(c));
        sim.conn_meta.push(ConnMeta {
            from: r.from.to_string(),
            to: r.to.to_string(),
            start: r.start,
            stop: r.stop,
            app: r.app,
        });
        Ok(conn)
    }
}

/// Build the world of `sc`. Errors name what is wrong (unknown host, link or algorithm).
pub fn build(sc: &Scenario) -> Result<Sim, String> {
    let mut net = topology::build(&sc.topology);
    for (i, l) in sc.losses.iter().enumerate() {
        let pid = net
            .port_by_name(&l.link)
            .ok_or_else(|| format!("loss: unknown link '{}'", l.link))?;
        net.ports[pid as usize].loss = Some(Box::new(LinkLoss {
            rate: l.rate,
            rng: Rng::new(sc.seed, STREAM_LINK_LOSS + i as u64),
            drop_nth: l.drop_nth.iter().map(|&(f, n)| (f as u32, n)).collect(),
            seen: vec![0; l.drop_nth.len()],
            every: l.every,
            data_seen: 0,
            dropped: 0,
        }));
    }
    let mut b = Builder {
        hosts: net
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.name.clone(), i as NodeId))
            .collect(),
        ports: PortAllocator::default(),
        last_tcp: None,
    };
    let mut sim = Sim::empty(sc, net);
    let n_conns = sc.flows.len() + sc.aggregates.iter().map(|a| a.workers.len()).sum::<usize>();
    sim.conns.reserve_exact(n_conns);
    sim.conn_meta.reserve_exact(n_conns);
    sim.apps
        .reserve_exact(sc.flows.len() + sc.aggregates.len() + sc.pings.len());

    // Bulk flows: one connection and one app each.
    for f in &sc.flows {
        let app = sim.apps.len() as u32;
        let conn = b.conn(
            &mut sim,
            ConnReq {
                from: &f.from,
                to: &f.to,
                service: BULK_PORT,
                tcp: &f.tcp,
                bytes: f.bytes,
                start: f.start,
                stop: f.stop,
                app,
            },
        )?;
        sim.apps.push(AnyApp::Bulk(Bulk {
            conn,
            start: f.start,
            stop: f.stop,
        }));
    }
    // Partition/aggregate: one connection per worker (worker → aggregator), which writes
    // only when asked: a byte count of 0 to start.
    for a in &sc.aggregates {
        let app = sim.apps.len() as u32;
        let first = sim.conns.len() as u32;
        for w in &a.workers {
            b.conn(
                &mut sim,
                ConnReq {
                    from: w,
                    to: &a.aggregator,
                    service: REQRESP_PORT,
                    tcp: &a.tcp,
                    bytes: Some(0),
                    start: a.start,
                    stop: None,
                    app,
                },
            )?;
        }
        sim.apps.push(AnyApp::ReqResp(Box::new(ReqResp::new(
            b.host(&a.aggregator)?,
            a.aggregator.clone(),
            first,
            a.workers.len() as u32,
            a.start,
            a.response_bytes,
            a.queries,
            a.think,
            a.request_size,
        ))));
    }
    for p in &sc.pings {
        let id = sim.apps.len() as u32;
        let (a, z) = (b.host(&p.from)?, b.host(&p.to)?);
        if !sim.net.reaches(a, z, 0) || !sim.net.reaches(z, a, 0) {
            return Err(format!(
                "ping {} → {}: no route between them (hosts do not forward; is a link missing?)",
                p.from, p.to
            ));
        }
        sim.apps.push(AnyApp::Ping(Box::new(Ping {
            id,
            from: b.host(&p.from)?,
            to: b.host(&p.to)?,
            from_name: p.from.clone(),
            to_name: p.to.clone(),
            start: p.start,
            interval: p.interval,
            size: p.size,
            ect: p.ect,
            dscp: p.dscp,
            sent: 0,
            rtts: Vec::new(),
        })));
    }

    // Probes.
    let o = &sc.output;
    let n = sim.conns.len();
    sim.probes.rtt = RttProbe::new(n);
    sim.probes.tsg = Tsg::new(&o.tsg, n)?;
    let sampled: Vec<PortId> = if o.queues.is_empty() {
        // The bottleneck, or every forward hop of a chain.
        sim.net
            .ports
            .iter()
            .enumerate()
            .filter(|(_, p)| {
                p.name == "bottleneck" || (p.name.starts_with("hop") && !p.name.ends_with("_rev"))
            })
            .map(|(i, _)| i as PortId)
            .collect()
    } else {
        o.queues
            .iter()
            .map(|n| {
                sim.net
                    .port_by_name(n)
                    .ok_or_else(|| format!("output.queues: unknown link '{n}'"))
            })
            .collect::<Result<_, _>>()?
    };
    sim.probes.sampler = Sampler::new(
        [o.cwnd_interval, o.queue_interval, o.throughput_interval],
        sc.duration,
        sampled,
        sim.conn_meta.iter().map(|m| m.start).collect(),
    );

    // First wake-ups, in app order, then the samplers'.
    for app in 0..sim.apps.len() as u32 {
        sim.app_call(app, |a, cx| a.start(cx));
    }
    for k in SeriesKind::ALL {
        if sim.probes.sampler.interval(k).is_some() {
            sim.q.schedule(0, Ev::Sample(k));
        }
    }
    Ok(sim)
}
