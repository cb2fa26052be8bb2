//! The simulator: builds a world from a `Scenario`, runs the event loop and collects
//! `RunResult`. A run is a pure function (scenario, seed) → results: no global state, no
//! wall clock in the results, no printing.

use crate::app::ping::PingProbe;
use crate::engine::{secs, EventQueue, Rng, SimTime};
use crate::net::packet::{Packet, PacketPool, PktId, PktKind, ECT0, NOT_ECT};
use crate::net::pcap::{Capture, CaptureStats, ConnPorts};
use crate::net::{flow_hash, topology, LinkLoss, NetCtx, NetEv, Network, NoTap, PortId};
use crate::results::*;
use crate::scenario::Scenario;
use crate::stats::LogHist;
use crate::tcp::{Addr, Receiver, Sender, TcpConn, TcpIo, TcpTimer};

/// Simulator events. Small and `Copy`: the queue moves them by value.
#[derive(Clone, Copy, Debug)]
pub enum Ev {
    /// The network's own events (arrivals, transmitters).
    Net(NetEv),
    /// A TCP timer: `server` = the receiver half.
    Tcp {
        conn: u32,
        server: bool,
        timer: TcpTimer,
    },
    FlowStart {
        conn: u32,
    },
    FlowStop {
        conn: u32,
    },
    Ping {
        probe: u32,
    },
    /// Partition/aggregate: the aggregator sends the next query.
    Query {
        agg: u32,
    },
    /// Time-series sampling: 0 cwnd, 1 queue, 2 throughput.
    Sample {
        kind: u8,
    },
}

impl From<NetEv> for Ev {
    #[inline]
    fn from(e: NetEv) -> Ev {
        Ev::Net(e)
    }
}

/// Stream ids for `Rng::new(seed, stream)`.
const STREAM_LINK_LOSS: u64 = 1 << 32;

pub struct Sim {
    pub scenario: Scenario,
    pub q: EventQueue<Ev>,
    pub net: Network,
    pub pool: PacketPool,
    pub conns: Vec<TcpConn>,
    pub flow_meta: Vec<FlowMeta>,
    pub pings: Vec<PingProbe>,
    io: TcpIo,
    rtt_hist: Vec<LogHist>,
    pub aggs: Vec<AggState>,
    /// For each connection, the partition/aggregate app it serves.
    conn_agg: Vec<Option<u32>>,
    /// Connections traced for time-sequence graphs.
    tsg: Vec<bool>,
    series: Series,
    last_delivered: Vec<u64>,
    sampled_ports: Vec<PortId>,
    /// pcap capture (`[output] pcap`, `--pcap`); `None` costs one branch per hop.
    pub capture: Option<Box<Capture>>,
}

/// A running partition/aggregate app.
pub struct AggState {
    pub aggregator: u32,
    pub conns: Vec<u32>,
    /// Bytes each connection must have delivered for the current query to be answered.
    pub targets: Vec<u64>,
    pub response_bytes: u64,
    pub queries: u32,
    pub think: SimTime,
    pub request_size: u32,
    /// Queries finished so far, and the start time of the current one.
    pub done: u32,
    pub issued_at: SimTime,
    pub pending: usize,
    /// For each connection, 1 + the index of the last query it answered.
    pub answered_q: Vec<u32>,
    pub qcts: Vec<SimTime>,
}

/// Per-flow facts the results need.
pub struct FlowMeta {
    pub from: String,
    pub to: String,
    pub start: SimTime,
    pub stop: Option<SimTime>,
}

impl Sim {
    /// Build the world. Errors name what is wrong (unknown host or link).
    pub fn new(sc: &Scenario) -> Result<Sim, String> {
        let mut net = topology::build(&sc.topology);
        // Loss injection.
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
        let host = |name: &str| {
            net.node_by_name(name)
                .ok_or_else(|| format!("unknown host '{name}'"))
        };
        let mut conns = Vec::new();
        let mut flow_meta = Vec::new();
        let mut q = EventQueue::new();
        for f in &sc.flows {
            let (c, s) = (host(&f.from)?, host(&f.to)?);
            let i = conns.len() as u32;
            let addr = Addr {
                client: c,
                server: s,
                conn: i,
                hash: flow_hash(c, s, 10000 + i as u16, 5201, 6),
                dscp: f.tcp.dscp,
            };
            let meta = FlowMeta {
                from: f.from.clone(),
                to: f.to.clone(),
                start: f.start,
                stop: f.stop,
            };
            new_conn(
                &mut conns,
                &mut flow_meta,
                &mut q,
                addr,
                &f.tcp,
                f.bytes,
                meta,
            )?;
        }
        let mut aggs = Vec::new();
        let mut conn_agg = vec![None; conns.len()];
        for (ai, a) in sc.aggregates.iter().enumerate() {
            let agg_node = host(&a.aggregator)?;
            let mut ids = Vec::new();
            for w in &a.workers {
                let c = host(w)?;
                let i = conns.len();
                let addr = Addr {
                    client: c,
                    server: agg_node,
                    conn: i as u32,
                    hash: flow_hash(c, agg_node, 20000 + i as u16, 80, 6),
                    dscp: a.tcp.dscp,
                };
                let meta = FlowMeta {
                    from: w.clone(),
                    to: a.aggregator.clone(),
                    start: a.start,
                    stop: None,
                };
                // A worker's connection writes only when asked: a byte count of 0 to start.
                new_conn(
                    &mut conns,
                    &mut flow_meta,
                    &mut q,
                    addr,
                    &a.tcp,
                    Some(0),
                    meta,
                )?;
                conn_agg.push(Some(ai as u32));
                ids.push(i as u32);
            }
            aggs.push(AggState {
                aggregator: agg_node,
                targets: vec![0; ids.len()],
                conns: ids,
                response_bytes: a.response_bytes,
                queries: a.queries,
                think: a.think,
                request_size: a.request_size,
                done: 0,
                issued_at: 0,
                pending: 0,
                answered_q: vec![0; a.workers.len()],
                qcts: Vec::new(),
            });
            q.schedule(a.start, Ev::Query { agg: ai as u32 });
        }
        let mut pings = Vec::new();
        for (i, p) in sc.pings.iter().enumerate() {
            pings.push(PingProbe {
                from: host(&p.from)?,
                to: host(&p.to)?,
                from_name: p.from.clone(),
                to_name: p.to.clone(),
                start: p.start,
                interval: p.interval,
                size: p.size,
                ect: p.ect,
                dscp: p.dscp,
                sent: 0,
                rtts: Vec::new(),
            });
            q.schedule(p.start, Ev::Ping { probe: i as u32 });
        }
        let o = &sc.output;
        for (k, iv) in [o.cwnd_interval, o.queue_interval, o.throughput_interval]
            .iter()
            .enumerate()
        {
            if iv.is_some() {
                q.schedule(0, Ev::Sample { kind: k as u8 });
            }
        }
        let sampled_ports = if o.queues.is_empty() {
            net.ports
                .iter()
                .enumerate()
                .filter(|(_, p)| {
                    p.name == "bottleneck"
                        || (p.name.starts_with("hop") && !p.name.ends_with("_rev"))
                })
                .map(|(i, _)| i as PortId)
                .collect()
        } else {
            o.queues
                .iter()
                .map(|n| {
                    net.port_by_name(n)
                        .ok_or_else(|| format!("output.queues: unknown link '{n}'"))
                })
                .collect::<Result<Vec<_>, _>>()?
        };
        let n = conns.len();
        Ok(Sim {
            scenario: sc.clone(),
            q,
            net,
            pool: PacketPool::default(),
            conns,
            flow_meta,
            pings,
            io: TcpIo::new(0),
            rtt_hist: vec![LogHist::default(); n],
            aggs,
            tsg: {
                let mut v = vec![false; n];
                for &f in &o.tsg {
                    if f >= n {
                        return Err(format!(
                            "output.tsg: no flow {f} (flows 0..{})",
                            n.saturating_sub(1)
                        ));
                    }
                    v[f] = true;
                }
                v
            },
            conn_agg,
            series: Series::default(),
            last_delivered: vec![0; n],
            sampled_ports,
            capture: None,
        })
    }

    /// Capture into `<dir>/<name>.pcap` for each host or link in `names` (`net::pcap`),
    /// with each connection's own ports (as `flow_hash` uses them) and MSS.
    pub fn attach_pcap(
        &mut self,
        names: &[String],
        dir: &std::path::Path,
        snaplen: u32,
    ) -> Result<(), String> {
        let mut cap = Capture::open(&self.net, names, dir, snaplen)?;
        let n_flows = self.scenario.flows.len();
        for (i, c) in self.conns.iter().enumerate() {
            let (client, server) = if i < n_flows {
                (10000 + i as u16, 5201)
            } else {
                (20000 + i as u16, 80)
            };
            let mss = (c.sender.mss + crate::net::packet::TS_OPT) as u16;
            cap.set_conn(
                i as u32,
                ConnPorts {
                    client,
                    server,
                    mss,
                },
            );
        }
        self.capture = Some(Box::new(cap));
        Ok(())
    }

    /// Flush and close the pcap files; their names and counters.
    pub fn finish_pcap(&mut self) -> Result<Vec<(String, CaptureStats)>, String> {
        match self.capture.take() {
            Some(c) => c.finish(),
            None => Ok(Vec::new()),
        }
    }

    /// Run until the scenario's duration.
    pub fn run(&mut self) {
        let end = self.scenario.duration;
        self.run_until(end);
    }

    /// Process every event up to and including time `until`.
    pub fn run_until(&mut self, until: SimTime) {
        while let Some((_, ev)) = self.q.pop_until(until) {
            self.dispatch(ev);
        }
        self.q.advance_to(until);
    }

    #[inline]
    fn dispatch(&mut self, ev: Ev) {
        match ev {
            Ev::Net(e) => {
                let delivered = match self.capture.as_deref_mut() {
                    Some(cap) => {
                        let mut cx = NetCtx {
                            pool: &mut self.pool,
                            q: &mut self.q,
                            tap: cap,
                        };
                        self.net.on_event(e, &mut cx)
                    }
                    None => {
                        let mut cx = NetCtx {
                            pool: &mut self.pool,
                            q: &mut self.q,
                            tap: &mut NoTap,
                        };
                        self.net.on_event(e, &mut cx)
                    }
                };
                if let Some((node, id)) = delivered {
                    self.arrive(node, id);
                }
            }
            Ev::Tcp {
                conn,
                server,
                timer,
            } => {
                self.io.now = self.q.now();
                let c = &mut self.conns[conn as usize];
                match (server, timer) {
                    (false, _) => c.sender.on_timer(&mut self.io),
                    (true, _) => c.receiver.on_timer(&mut self.io),
                }
                self.flush(conn, server);
            }
            Ev::FlowStart { conn } => {
                self.io.now = self.q.now();
                self.conns[conn as usize].sender.connect(&mut self.io);
                self.flush(conn, false);
            }
            Ev::FlowStop { conn } => {
                self.conns[conn as usize].sender.app_stop();
            }
            Ev::Ping { probe } => self.send_ping(probe),
            Ev::Query { agg } => self.send_query(agg),
            Ev::Sample { kind } => self.sample(kind),
        }
    }

    /// Hand the packets and timers an endpoint produced to the network and the queue.
    fn flush(&mut self, conn: u32, server: bool) {
        for t in self.io.timers.drain(..) {
            self.q.schedule(
                t.0,
                Ev::Tcp {
                    conn,
                    server,
                    timer: t.1,
                },
            );
        }
        let mut tx = std::mem::take(&mut self.io.tx);
        if !server && self.tsg[conn as usize] {
            let t = secs(self.q.now());
            for p in tx.iter().filter(|p| p.payload > 0) {
                self.series.tsg.push(TsgSample {
                    t,
                    flow: conn,
                    kind: p.retrans as u8,
                    seq: p.seq,
                    end: p.seq + p.payload as u64,
                });
            }
        }
        for p in tx.drain(..) {
            let src = p.src;
            let id = self.pool.alloc(p);
            self.forward(src, id);
        }
        self.io.tx = tx;
    }

    /// Send packet `id` out of `node` towards its destination.
    #[inline]
    fn forward(&mut self, node: u32, id: PktId) {
        match self.capture.as_deref_mut() {
            Some(cap) => {
                let mut cx = NetCtx {
                    pool: &mut self.pool,
                    q: &mut self.q,
                    tap: cap,
                };
                self.net.forward(node, id, &mut cx)
            }
            None => {
                let mut cx = NetCtx {
                    pool: &mut self.pool,
                    q: &mut self.q,
                    tap: &mut NoTap,
                };
                self.net.forward(node, id, &mut cx)
            }
        }
    }

    fn arrive(&mut self, node: u32, id: PktId) {
        // Delivered to the destination host: handled in place, no copy of the packet.
        let now = self.q.now();
        let (kind, conn) = {
            let p = self.pool.get(id);
            (p.kind, p.conn)
        };
        match kind {
            PktKind::Tcp => {
                self.io.now = now;
                let c = &mut self.conns[conn as usize];
                let p = self.pool.get(id);
                if p.from_client {
                    c.receiver.on_packet(p, &mut self.io);
                    let delivered = c.receiver.delivered_bytes;
                    self.pool.free(id);
                    self.flush(conn, true);
                    if let Some(a) = self.conn_agg[conn as usize] {
                        self.check_answer(a, conn, delivered);
                    }
                } else {
                    if self.tsg[conn as usize] && p.flags & crate::net::packet::ACK != 0 {
                        self.series.tsg.push(TsgSample {
                            t: secs(now),
                            flow: conn,
                            kind: 2,
                            seq: p.ack,
                            end: p.ack + p.rwnd,
                        });
                    }
                    let before = c.sender.rtt.samples;
                    c.sender.on_packet(p, &mut self.io);
                    if c.sender.rtt.samples != before {
                        self.rtt_hist[conn as usize].add(secs(c.sender.rtt.latest));
                    }
                    self.pool.free(id);
                    self.flush(conn, false);
                }
            }
            PktKind::Ping => {
                // The echo reply reuses the request's slot.
                let r = self.pool.get_mut(id);
                r.kind = PktKind::Pong;
                std::mem::swap(&mut r.src, &mut r.dst);
                r.ecn = if r.ecn == NOT_ECT { NOT_ECT } else { ECT0 };
                self.forward(node, id);
            }
            PktKind::Request => {
                self.pool.free(id);
                let a =
                    self.conn_agg[conn as usize].expect("requests belong to an aggregate") as usize;
                let bytes = self.aggs[a].response_bytes;
                self.io.now = now;
                self.conns[conn as usize]
                    .sender
                    .app_write(bytes, &mut self.io);
                self.flush(conn, false);
            }
            // No endpoint for these protocols yet: the host discards them.
            PktKind::Udp | PktKind::Flow => self.pool.free(id),
            PktKind::Pong => {
                let born = self.pool.get(id).born;
                self.pool.free(id);
                self.pings[conn as usize].rtts.push(now - born);
            }
        }
    }

    /// The aggregator asks every worker for its answer to the next query.
    fn send_query(&mut self, agg: u32) {
        let now = self.q.now();
        let a = &mut self.aggs[agg as usize];
        a.issued_at = now;
        a.pending = a.conns.len();
        let mut reqs = Vec::with_capacity(a.conns.len());
        for (k, &c) in a.conns.iter().enumerate() {
            a.targets[k] += a.response_bytes;
            let s = &self.conns[c as usize].sender;
            let mut p = Packet::blank();
            p.kind = PktKind::Request;
            p.src = a.aggregator;
            p.dst = s.addr.client;
            p.conn = c;
            p.from_client = false;
            p.size = a.request_size;
            p.hash = s.addr.hash;
            p.dscp = s.addr.dscp;
            p.born = now;
            reqs.push(p);
        }
        let from = a.aggregator;
        for p in reqs {
            let id = self.pool.alloc(p);
            self.forward(from, id);
        }
    }

    /// A worker's connection delivered data: is its answer to the current query complete?
    fn check_answer(&mut self, agg: u32, conn: u32, delivered: u64) {
        let now = self.q.now();
        let a = &mut self.aggs[agg as usize];
        let k = a
            .conns
            .iter()
            .position(|&c| c == conn)
            .expect("conn belongs to agg");
        // Each connection counts once per query: its target moves on only with the next one.
        if a.pending == 0 || delivered < a.targets[k] || a.done >= a.queries {
            return;
        }
        if a.answered_q[k] <= a.done {
            a.answered_q[k] = a.done + 1;
            a.pending -= 1;
            if a.pending == 0 {
                a.qcts.push(now - a.issued_at);
                a.done += 1;
                if a.done < a.queries {
                    let at = now + a.think;
                    self.q.schedule(at, Ev::Query { agg });
                }
            }
        }
    }

    fn send_ping(&mut self, probe: u32) {
        let now = self.q.now();
        let pr = &mut self.pings[probe as usize];
        let mut p = Packet::blank();
        p.kind = PktKind::Ping;
        p.src = pr.from;
        p.dst = pr.to;
        p.conn = probe;
        p.size = pr.size;
        p.ecn = if pr.ect { ECT0 } else { NOT_ECT };
        p.dscp = pr.dscp;
        p.hash = flow_hash(pr.from, pr.to, probe as u16, 0, 1);
        p.born = now;
        p.seq = pr.sent;
        pr.sent += 1;
        let next = now + pr.interval;
        let from = pr.from;
        self.q.schedule(next, Ev::Ping { probe });
        let id = self.pool.alloc(p);
        self.forward(from, id);
    }

    fn sample(&mut self, kind: u8) {
        let now = self.q.now();
        let t = secs(now);
        let o = &self.scenario.output;
        let iv = match kind {
            0 => o.cwnd_interval,
            1 => o.queue_interval,
            _ => o.throughput_interval,
        };
        match kind {
            0 => {
                for (i, c) in self.conns.iter().enumerate() {
                    let s = &c.sender;
                    if now < self.flow_meta[i].start {
                        continue;
                    }
                    self.series.cwnd.push(CwndSample {
                        t,
                        flow: i as u32,
                        cwnd: s.tp.snd_cwnd,
                        ssthresh: s.tp.snd_ssthresh.min(1 << 30),
                        srtt_s: secs(s.rtt.srtt()),
                        in_flight: s.in_flight(),
                    });
                }
            }
            1 => {
                for &pid in &self.sampled_ports {
                    let p = &self.net.ports[pid as usize];
                    self.series.queue.push(QueueSample {
                        t,
                        queue: p.name.clone(),
                        bytes: p.qdisc.bytes(),
                        pkts: p.qdisc.pkts(),
                    });
                }
            }
            _ => {
                let dt = secs(iv.unwrap_or(1));
                if now > 0 {
                    for (i, c) in self.conns.iter().enumerate() {
                        let d = c.receiver.delivered_bytes;
                        let bps = (d - self.last_delivered[i]) as f64 * 8.0 / dt;
                        self.last_delivered[i] = d;
                        self.series.throughput.push(ThroughputSample {
                            t,
                            flow: i as u32,
                            bps,
                        });
                    }
                }
            }
        }
        if let Some(iv) = iv {
            let next = now + iv;
            if next <= self.scenario.duration {
                self.q.schedule(next, Ev::Sample { kind });
            }
        }
    }

    /// Collect the results of the run so far.
    pub fn results(&self) -> RunResult {
        let sc = &self.scenario;
        let end = self.q.now();
        let mut flows = Vec::new();
        for (i, c) in self.conns.iter().enumerate() {
            let m = &self.flow_meta[i];
            let s = &c.sender;
            let r = &c.receiver;
            let fct = s
                .done_at
                .filter(|_| s.total_bytes.is_some())
                .map(|t| secs(t - m.start));
            let active_end = match (s.done_at, m.stop) {
                (Some(d), _) if s.total_bytes.is_some() => d,
                (_, Some(st)) => st.min(end),
                _ => end,
            };
            let dur = secs(active_end.saturating_sub(m.start));
            let h = &self.rtt_hist[i];
            flows.push(FlowResult {
                id: i as u32,
                from: m.from.clone(),
                to: m.to.clone(),
                cc: s.cc_name().to_string(),
                start_s: secs(m.start),
                bytes: r.delivered_bytes,
                goodput_bps: if dur > 0.0 {
                    r.delivered_bytes as f64 * 8.0 / dur
                } else {
                    0.0
                },
                retransmits: s.stats.retrans_segs,
                fast_retransmits: s.stats.fast_retrans,
                timeouts: s.stats.timeouts,
                syn_retransmits: s.stats.syn_retrans,
                ece_acks: s.stats.ece_acks,
                ce_received: r.stats.ce_segs_in,
                data_segs_out: s.stats.data_segs_out,
                acks_sent: r.stats.acks_sent,
                delayed_acks: r.stats.delayed_acks,
                fct_s: fct,
                rtt_mean_s: h.mean(),
                rtt_p99_s: h.quantile(0.99),
                final_cwnd: s.tp.snd_cwnd,
                ss: s.ss_line(),
            });
        }
        let queues = self
            .net
            .ports
            .iter()
            .filter(|p| p.stats.enqueued > 0 || p.loss.is_some())
            .map(|p| {
                let st = &p.stats;
                QueueResult {
                    name: p.name.clone(),
                    max_bytes: st.max_bytes,
                    max_pkts: st.max_pkts,
                    mean_bytes: p.mean_bytes(end),
                    drops: st.drops,
                    marks: st.marks,
                    enqueued: st.enqueued,
                    tx_pkts: p.tx_pkts,
                    tx_bytes: p.tx_bytes,
                    injected_losses: p.loss.as_ref().map_or(0, |l| l.dropped),
                }
            })
            .collect();
        let pings = self
            .pings
            .iter()
            .map(|p| {
                let s = crate::app::ping::summarize(&p.rtts);
                PingResult {
                    from: p.from_name.clone(),
                    to: p.to_name.clone(),
                    sent: p.sent,
                    received: p.rtts.len() as u64,
                    rtt_mean_s: s.map(|s| s[0]),
                    rtt_median_s: s.map(|s| s[1]),
                    rtt_p99_s: s.map(|s| s[2]),
                    rtt_min_s: s.map(|s| s[3]),
                    rtt_max_s: s.map(|s| s[4]),
                    rtt_stddev_s: s.map(|s| s[5]),
                }
            })
            .collect();
        // netstat-style per-host TCP timeout counters.
        let mut hosts: Vec<HostResult> = Vec::new();
        for (i, c) in self.conns.iter().enumerate() {
            let name = &self.flow_meta[i].from;
            match hosts.iter_mut().find(|h| &h.host == name) {
                Some(h) => h.tcp_timeouts += c.sender.stats.timeouts,
                None => hosts.push(HostResult {
                    host: name.clone(),
                    tcp_timeouts: c.sender.stats.timeouts,
                }),
            }
        }
        let aggregates = self
            .aggs
            .iter()
            .zip(&sc.aggregates)
            .map(|(a, spec)| {
                let s = crate::app::ping::summarize(&a.qcts);
                AggregateResult {
                    aggregator: spec.aggregator.clone(),
                    workers: a.conns.len() as u32,
                    response_bytes: a.response_bytes,
                    queries_done: a.done,
                    qct_mean_s: s.map(|s| s[0]),
                    qct_median_s: s.map(|s| s[1]),
                    qct_p99_s: s.map(|s| s[2]),
                    qct_max_s: s.map(|s| s[4]),
                    timeouts: a
                        .conns
                        .iter()
                        .map(|&c| self.conns[c as usize].sender.stats.timeouts)
                        .sum(),
                }
            })
            .collect();
        RunResult {
            scenario: sc.name.clone(),
            aggregates,
            seed: sc.seed,
            duration_s: secs(sc.duration),
            flows,
            queues,
            pings,
            hosts,
            engine: EngineResult {
                events: self.q.events_processed(),
                packet_hops: self.net.packet_hops,
                sim_time_s: secs(end),
            },
            series: self.series.clone(),
        }
    }
}

/// Create one connection (both halves) and schedule its start and stop.
fn new_conn(
    conns: &mut Vec<TcpConn>,
    flow_meta: &mut Vec<FlowMeta>,
    q: &mut EventQueue<Ev>,
    addr: Addr,
    tcp: &crate::scenario::TcpConfig,
    bytes: Option<u64>,
    meta: FlowMeta,
) -> Result<(), String> {
    if crate::cc::Cc::by_name(&tcp.cc, &Default::default()).is_none() {
        return Err(format!(
            "connection {} ({} → {}): unknown congestion control '{}' (allowed: {})",
            addr.conn,
            meta.from,
            meta.to,
            tcp.cc,
            crate::cc::CC_NAMES.join(", ")
        ));
    }
    conns.push(TcpConn {
        sender: Sender::new(addr, tcp, meta.start, bytes),
        receiver: Receiver::new(addr, tcp),
    });
    q.schedule(meta.start, Ev::FlowStart { conn: addr.conn });
    if let Some(stop) = meta.stop {
        q.schedule(stop, Ev::FlowStop { conn: addr.conn });
    }
    flow_meta.push(meta);
    Ok(())
}

/// Build, run and collect in one call.
pub fn run(sc: &Scenario) -> Result<RunResult, String> {
    let mut sim = Sim::new(sc)?;
    sim.run();
    Ok(sim.results())
}

/// `run`, writing the captures `[output] pcap` asks for into `out` as `<name>.pcap`.
pub fn run_to(sc: &Scenario, out: &std::path::Path) -> Result<RunResult, String> {
    let mut sim = Sim::new(sc)?;
    if !sc.output.pcap.is_empty() {
        sim.attach_pcap(&sc.output.pcap, out, crate::net::pcap::DEFAULT_SNAPLEN)?;
    }
    sim.run();
    sim.finish_pcap()?;
    Ok(sim.results())
}
