//! Building a world from a scenario: the network (topology, loss injection), the apps and
//! their connections (each app builds its own, through a [`WorldBuilder`]), the probes the
//! output section asks for, and each app's first wake-ups.
//!
//! Everything is numbered in scenario order — connections in the order of `[[flow]]`
//! then of the `[[aggregate]]` workers, then those of pings, UDP and ocbr flows; apps
//! likewise — so the same scenario always schedules the same events in the same order.

use crate::app::{AnyApp, App, AppId, Build, ConnReq};
use crate::conn::{Conn, Ends};
use crate::engine::{Rng, SimTime, SEC};
use crate::net::host::HostJitter;
use crate::net::{topology, LinkLoss, NodeId, NodeKind, PortId};
use crate::probe::sampler::{Sampler, SeriesKind};
use crate::probe::{rtt::RttProbe, tsg::Tsg};
use crate::scenario::{Scenario, TcpConfig};
use crate::sim::{ConnMeta, Ev, Sim};
use crate::tcp::{Addr, TcpConn};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Stream ids for `Rng::new(seed, stream)`: loss injection `[[loss]]` i, and the NIC
/// (output port) p of a host.
const STREAM_LINK_LOSS: u64 = 1 << 32;
const STREAM_HOST_JITTER: u64 = 2 << 32;
/// Hosts' monotonic clocks (their offsets at the start of the run).
const STREAM_HOST_CLOCK: u64 = 3 << 32;
/// Apps' own random draws (app i).
const STREAM_APP: u64 = 4 << 32;
/// An app's sub-streams (app i, part k: a workload's host k).
const STREAM_APP_PART: u64 = 1 << 63;
/// Ports' queue disciplines (port p): PIE's and netem's draws, given by `start`.
pub const STREAM_QDISC: u64 = 5 << 32;
/// A generated link's opportunities (`net/dynamics.rs`), per port.
pub const STREAM_LINK_RATE: u64 = 6 << 32;
/// Random loss an `[[event]]` sets on a link without `[[loss]]`.
const STREAM_EVENT_LOSS: u64 = 7 << 32;

/// The world being built: what an app's `build` may do to it ([`Build`]: name hosts, open
/// connections, add itself).
pub struct WorldBuilder<'s> {
    sim: &'s mut Sim,
    hosts: BTreeMap<String, NodeId>,
    /// The configuration of the previous connection: the next one shares it when equal.
    last_tcp: Option<Arc<TcpConfig>>,
    /// The last configuration a workload's connections were checked with.
    checked_tcp: Option<Arc<TcpConfig>>,
    /// The Ouroboros layer's router marking, once an app asks for it.
    flow_marking: Option<(crate::flow::FlowCaKind, u64)>,
    /// A connection of another transport than TCP was added: no TCP one may follow (a
    /// flow's number is its slot, `Conn`).
    others: bool,
}

/// Each method is documented on [`Build`].
impl Build for WorldBuilder<'_> {
    fn host(&self, name: &str) -> Result<NodeId, String> {
        self.hosts
            .get(name)
            .copied()
            .ok_or_else(|| format!("unknown host '{name}'"))
    }

    fn host_names(&self) -> Vec<String> {
        let net = &self.sim.net;
        net.nodes
            .iter()
            .filter(|n| n.kind == crate::net::NodeKind::Host)
            .map(|n| n.name.clone())
            .collect()
    }

    fn host_rate(&self, name: &str) -> Result<u64, String> {
        let net = &self.sim.net;
        let node = &net.nodes[self.host(name)? as usize];
        node.ports
            .first()
            .map(|&p| net.port(p).rate_bps)
            .ok_or_else(|| format!("host '{name}' has no link"))
    }

    fn reaches(&self, a: NodeId, z: NodeId, hash: u32) -> bool {
        self.sim.net.reaches(a, z, hash)
    }

    fn attachment(&self, host: NodeId) -> Option<NodeId> {
        self.sim.net.routes.attachment(host)
    }

    fn set_flow_marking(&mut self, ca: crate::flow::FlowCaKind, hidden: u64) {
        self.flow_marking = Some((ca, hidden));
    }

    fn frame_time(&self, from: NodeId, to: NodeId, hash: u32, size: u32) -> SimTime {
        let net = &self.sim.net;
        match net.routes.next_port(from, to, hash) {
            Some(p) => net.port(p).ser_time(size),
            None => 0,
        }
    }

    fn host_clock_ns(&self, node: NodeId) -> u64 {
        let mut r = Rng::new(self.sim.scenario.seed, STREAM_HOST_CLOCK + node as u64);
        r.below(86_400_000_000_000)
    }

    fn app_rng(&self, app: AppId) -> Rng {
        Rng::new(self.sim.scenario.seed, STREAM_APP + app as u64)
    }

    fn app_sub_rng(&self, app: AppId, k: u64) -> Rng {
        let stream = STREAM_APP_PART | (u64::from(app) << 32) | (k & 0xffff_ffff);
        Rng::new(self.sim.scenario.seed, stream)
    }

    fn next_app(&self) -> AppId {
        self.sim.apps.len() as AppId
    }

    fn next_conn(&self) -> u32 {
        self.sim.conns.len() as u32
    }

    fn push_app(&mut self, app: AnyApp) -> AppId {
        self.sim.apps.push(app);
        (self.sim.apps.len() - 1) as AppId
    }

    fn conn(&mut self, r: ConnReq) -> Result<u32, String> {
        assert!(
            !self.others,
            "the apps that open TCP connections come first in the apps! registry"
        );
        let (client, server) = (self.host(r.from)?, self.host(r.to)?);
        let conn = self.sim.conns.len() as u32;
        let addr = self.sim.addr(client, server, conn, r.service, r.tcp.dscp);
        let sim = &mut *self.sim;
        for (a, z) in [(client, server), (server, client)] {
            if !sim.net.reaches(a, z, addr.hash) {
                return Err(format!(
                    "{} ({} → {}): no route from {} to {} (hosts do not forward; is a link missing?)",
                    r.label, r.from, r.to, sim.net.nodes[a as usize].name, sim.net.nodes[z as usize].name
                ));
            }
        }
        let cfg = self.host_tcp(client, r.tcp);
        let nic = self.sim.local_cwr_nic(&addr);
        let bad = |e: String| format!("{} ({} → {}): {e}", r.label, r.from, r.to);
        let mut c = TcpConn::new(addr, &cfg, r.start, r.bytes).map_err(bad)?;
        c.sender.seed_random(self.sim.scenario.seed);
        let sim = &mut *self.sim;
        sim.conns.push(Conn::new(Ends::Tcp(c)));
        sim.conn_nic.push(nic);
        sim.conn_key.push(crate::conn::ConnKey::of(&addr));
        sim.conn_meta.push(ConnMeta {
            id: conn,
            from: client,
            to: server,
            start: r.start,
            stop: r.stop,
            app: r.app,
            nic,
            ephemeral: false,
        });
        Ok(conn)
    }

    fn add_conn(&mut self, c: Conn, from: NodeId, to: NodeId, app: AppId) -> u32 {
        let sim = &mut *self.sim;
        let conn = sim.conns.len() as u32;
        self.others = true;
        sim.conns.push(c);
        sim.conn_nic.push(u32::MAX);
        sim.conn_key.push(crate::conn::ConnKey::default());
        sim.conn_meta.push(ConnMeta {
            id: u32::MAX,
            from,
            to,
            start: 0,
            stop: None,
            app,
            nic: u32::MAX,
            ephemeral: false,
        });
        conn
    }

    fn host_tcp(&mut self, client: NodeId, tcp: &TcpConfig) -> Arc<TcpConfig> {
        let mut tcp = tcp.clone();
        let h = &self.sim.scenario.host;
        tcp.host = crate::tcp::config::HostStack {
            tso: h.tso,
            tsq: h.tsq,
            fq: self.sim.net.host_qdisc_paces(client),
        };
        let cfg = match &self.last_tcp {
            Some(c) if **c == tcp => Arc::clone(c),
            _ => Arc::new(tcp),
        };
        self.last_tcp = Some(Arc::clone(&cfg));
        cfg
    }

    fn check_tcp(&mut self, cfg: &Arc<TcpConfig>) -> Result<(), String> {
        if !self
            .checked_tcp
            .as_ref()
            .is_some_and(|c| Arc::ptr_eq(c, cfg))
        {
            let a = Addr {
                client: 0,
                server: 1,
                conn: 0,
                sport: crate::transport::EPHEMERAL_FIRST,
                dport: 5001,
                hash: 0,
                dscp: cfg.dscp,
                gen: 0,
            };
            TcpConn::new(a, cfg, 0, Some(1))?;
            self.checked_tcp = Some(Arc::clone(cfg));
        }
        Ok(())
    }
}

impl Sim {
    /// Build the world of `sc` ([`build`]): the step before the event loop, which returns
    /// the simulator ready to run. Defined here, not in `sim.rs`, so that the event loop
    /// needs nothing of the building.
    pub fn new(sc: &Scenario) -> Result<Sim, String> {
        build(sc)
    }
}

/// Build, run and collect in one call.
pub fn run(sc: &Scenario) -> Result<crate::results::RunResult, String> {
    let mut sim = build(sc)?;
    sim.run();
    Ok(sim.results())
}

/// Build the world of `sc`. Errors name what is wrong (unknown host, link or algorithm).
pub fn build(sc: &Scenario) -> Result<Sim, String> {
    let mut net = topology::build(&sc.topology);
    let jitter = HostJitter::max_of(sc.host.jitter, &net);
    let nics: Vec<PortId> = (net.nodes.iter())
        .filter(|n| n.kind == NodeKind::Host)
        .flat_map(|n| n.ports.iter().copied())
        .collect();
    if jitter > 0 {
        // Every host NIC draws its processing jitter from its own stream.
        for &p in &nics {
            net.port_mut(p).set_jitter(HostJitter::new(
                jitter,
                Rng::new(sc.seed, STREAM_HOST_JITTER + p as u64),
            ));
        }
    }
    if sc.host.ipgt != crate::net::host::IPGT_DEFAULT {
        // The NIC's inter-packet gap (e1000 TIPG.IPGT + 4 byte times) replaces Ethernet's
        // 12-byte gap on every Ethernet-framed host port; bare-IP links have no gap.
        for &p in &nics {
            let port = net.port_mut(p);
            if port.framing == crate::net::ETH_OVERHEAD {
                port.framing = port.framing - crate::net::host::IPGT_DEFAULT + sc.host.ipgt;
            }
        }
    }
    if sc.host.sack_walk_cost > 0 {
        let mss = sc
            .apps
            .flows
            .iter()
            .map(|f| f.tcp.mtu)
            .min()
            .unwrap_or(1500) as u64
            - 52;
        let nodes = net.nodes.len();
        net.set_sack_cpu(crate::net::host::sack_cpu::SackCpu::new(
            sc.host.sack_walk_cost,
            sc.host.ack_cost,
            sc.host.ack_backlog,
            mss,
            nodes,
        ));
    }
    if sc.host.gro {
        net.host.gro = Some(Box::new(crate::net::gro::Gro::new(
            sc.host.gro_flush,
            net.nodes.len(),
        )));
    }
    for pol in &sc.policers {
        let pid = net
            .port_by_name(&pol.link)
            .ok_or_else(|| format!("police: unknown link '{}'", pol.link))?;
        net.port_mut(pid)
            .set_ingress(crate::net::ingress::Ingress::new(pol.police));
    }
    for (i, l) in sc.losses.iter().enumerate() {
        let pid = net
            .port_by_name(&l.link)
            .ok_or_else(|| format!("loss: unknown link '{}'", l.link))?;
        net.port_mut(pid).set_loss(LinkLoss {
            rate: l.rate,
            rng: Rng::new(sc.seed, STREAM_LINK_LOSS + i as u64),
            drop_nth: l.drop_nth.iter().map(|&(f, n)| (f as u32, n)).collect(),
            seen: vec![0; l.drop_nth.len()],
            every: l.every,
            data_seen: 0,
            dropped: 0,
        });
    }
    for l in &sc.link_rates {
        let pid = net
            .port_by_name(&l.link)
            .ok_or_else(|| format!("rate: unknown link '{}'", l.link))?;
        net.set_rate_source(
            pid,
            &l.source,
            Rng::new(sc.seed, STREAM_LINK_RATE + pid as u64),
        );
    }
    net.seal(0);
    let mut sim = Sim::empty(sc, net);
    let n_conns = sc.apps.flows.len()
        + sc.apps
            .aggregates
            .iter()
            .map(|a| a.workers.len())
            .sum::<usize>()
        + sc.apps.pings.len()
        + sc.apps.udps.len()
        + sc.apps.ocbrs.len();
    sim.conns.reserve_exact(n_conns);
    sim.conn_meta.reserve_exact(n_conns);
    sim.apps.reserve_exact(sc.apps.len());
    let hosts = sim
        .net
        .nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.name.clone(), i as NodeId))
        .collect();
    let mut w = WorldBuilder {
        sim: &mut sim,
        hosts,
        last_tcp: None,
        checked_tcp: None,
        flow_marking: None,
        others: false,
    };
    crate::app::build(&sc.apps, &mut w)?;
    if let Some((ca, hidden)) = w.flow_marking {
        sim.net.wrap_qdiscs(|q| {
            crate::qdisc::Qdisc::Custom(Box::new(crate::flow::router::RouterMark::new(
                q, ca, hidden,
            )))
        });
    }
    // Changes to links during the run; their ports run on events.
    if !sc.events.is_empty() {
        let mut changes = Vec::new();
        for e in &sc.events {
            let port = sim
                .net
                .port_by_name(&e.link)
                .ok_or_else(|| format!("event: unknown link '{}'", e.link))?;
            changes.push((
                e.at,
                crate::net::dynamics::events::LinkChange {
                    port,
                    change: e.change.clone(),
                    follow_up: false,
                },
            ));
        }
        sim.net.add_changes(
            changes,
            Rng::new(sc.seed, STREAM_EVENT_LOSS).next_u64(),
            &mut sim.q,
        );
        sim.net.seal(0);
    }
    // Each discipline's random stream, and the first timers of those that keep one.
    let seed = sc.seed;
    sim.net
        .start_qdiscs(|p| Rng::new(seed, STREAM_QDISC + p as u64), &mut sim.q);
    // The world's TCP connections, numbered by their slots (the first ones); a workload's
    // flows are numbered on from there.
    let n_tcp = sim.conns.iter().take_while(|c| c.tcp().is_some()).count();
    sim.next_flow_id = n_tcp as u32;
    // Known once the apps are built (a builder opens an app's connections before it adds
    // the app).
    sim.conn_deliveries = (sim.conn_meta.iter())
        .map(|m| sim.apps[m.app as usize].wants_deliveries())
        .collect();

    // Probes.
    let o = &sc.output;
    sim.probes.rtt = RttProbe::new(sim.conns.len());
    sim.probes.tsg = Tsg::new(&o.tsg, n_tcp)?;
    let sampled: Vec<PortId> = if o.queues.is_empty() {
        // The bottleneck, or every forward hop of a chain.
        sim.net
            .ports()
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
        [
            o.cwnd_interval,
            o.queue_interval,
            o.throughput_interval,
            o.cc_interval,
        ],
        sc.duration,
        sampled,
        sim.conn_meta[..n_tcp].iter().map(|m| m.start).collect(),
    );

    series_budget(&sim)?;

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

/// Most rows all recorded series of one run may hold together (cwnd, queue, throughput,
/// cc and tsg; each row 32–80 bytes in memory, so about 1 GB at most).
pub const MAX_SERIES_ROWS: u64 = 10_000_000;

/// Refuse, before the run, series that would hold more than [`MAX_SERIES_ROWS`] rows.
/// Sampled series are counted exactly (samples × flows or queues, or for `cc` × each
/// flow's algorithm's quantities); a traced flow (`tsg`)
/// is bounded by what its sender's fastest link can carry: one row per full segment sent
/// and at most one per ACK.
fn series_budget(sim: &Sim) -> Result<(), String> {
    let sc = &sim.scenario;
    let o = &sc.output;
    let d = sc.duration;
    let points = |iv: Option<SimTime>| iv.map_or(0, |iv| d / iv + 1);
    let tcp = sim.conns.iter().filter(|c| c.tcp_addr().is_some()).count() as u64;
    let cc_vars = if o.cc_interval.is_some() {
        use crate::cc::CongestionOps;
        (sim.conns.iter().filter_map(|c| c.tcp()))
            .map(|c| c.sender.cc.state_vars().len() as u64)
            .sum()
    } else {
        0
    };
    let mut parts: Vec<(&str, u64)> = vec![
        ("cwnd", points(o.cwnd_interval).saturating_mul(tcp)),
        (
            "queue",
            points(o.queue_interval).saturating_mul(sim.probes.sampler.ports.len() as u64),
        ),
        (
            "throughput",
            points(o.throughput_interval).saturating_mul(tcp),
        ),
        // One row per quantity of each flow's algorithm.
        ("cc", points(o.cc_interval).saturating_mul(cc_vars)),
    ];
    let mut tsg = 0u64;
    for &f in &o.tsg {
        let (Some(c), Some(m)) = (sim.conns.get(f).and_then(|c| c.tcp()), sim.conn_meta.get(f))
        else {
            continue;
        };
        let node = &sim.net.nodes[m.from as usize];
        let most = node
            .ports
            .iter()
            .map(|&p| {
                let p = &sim.net.port(p);
                let wire_bits = u128::from(c.sender.mss + 40 + p.framing) * 8;
                (u128::from(p.rate_bps) * u128::from(d)).div_ceil(wire_bits * u128::from(SEC))
            })
            .max()
            .unwrap_or(0);
        tsg = tsg.saturating_add(u64::try_from(most.saturating_mul(2)).unwrap_or(u64::MAX));
    }
    parts.push(("tsg", tsg));
    let total = parts.iter().fold(0u64, |a, (_, n)| a.saturating_add(*n));
    if total <= MAX_SERIES_ROWS {
        return Ok(());
    }
    let (key, _) = parts
        .iter()
        .max_by_key(|(_, n)| *n)
        .copied()
        .unwrap_or(("cwnd", 0));
    let shown: Vec<String> = parts
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    Err(format!(
        "output.{key}: the series of this run would hold {total} rows ({}{}), more than the \
         {MAX_SERIES_ROWS} all series together may hold; sample less often, trace fewer \
         flows or shorten sim.duration",
        shown.join(", "),
        if tsg > 0 {
            "; tsg counted as what the senders' links can carry"
        } else {
            ""
        }
    ))
}
