//! The simulator: the event loop, and the glue between the layers it dispatches to.
//!
//! One event queue holds the events of every layer ([`Ev`]): the network's arrivals and
//! transmitter wake-ups, the transport endpoints' timers, the apps' wake-ups and the
//! samplers'. The loop pops the next one and hands it to its layer; what a layer produces
//! for another one passes through here:
//!
//! ```text
//! app ──Cmd──▶ transport endpoint ──Io.tx──▶ host egress ──▶ ports, links … ──▶ host
//!  ▲                                                                              │
//!  └──────── on_delivered / on_message ◀── transport endpoint ◀── deliver ◀───────┘
//! ```
//!
//! A run is a pure function (scenario, seed) → results: no global state, no wall clock in
//! the results, no printing. The world is built in `world.rs`, results are collected in
//! `sim/collect.rs`.

mod collect;

pub use collect::try_collect_streaming;

use crate::app::{AnyApp, App, AppCx, AppId, Cmd};
use crate::conn::{Conn, ConnKey, Ends};
use crate::engine::{EventQueue, SimTime};
use crate::net::forward::NetOut;
use crate::net::{NetCtx, NetEv, Network, NoTap, NodeId, PortId};
use crate::packet::{Packet, PacketPool, PktId, PktKind};
use crate::probe::sampler::SeriesKind;
use crate::probe::Probes;
use crate::qdisc::QueueDisc;
use crate::results::RunResult;
use crate::scenario::Scenario;
use crate::tcp::TcpConn;
use crate::transport::{Endpoint, Io, Side, TimerKind};

/// The events of every layer. Small and `Copy`: the queue moves them by value. The tag is a
/// `u32` (`repr(u32)`), so every variant's fields start 4-byte aligned and moving an event
/// is a few aligned copies: with Rust's default layout the one-byte fields sit right after
/// a one-byte tag, the compiler moves the enum in overlapping odd-offset pieces, and every
/// pop stalls on store forwarding (measured: a 1 Gbit/s long-fat-path run 35% slower).
#[derive(Clone, Copy, Debug)]
#[repr(u32)]
pub enum Ev {
    /// The network's own events (arrivals, transmitters).
    Net(NetEv),
    /// A timer of an endpoint of connection `conn`.
    Timer {
        conn: u32,
        /// The connection's generation ([`crate::tcp::Addr::gen`]): a timer of a
        /// connection that closed is ignored, also once its slot holds another.
        gen: u32,
        side: Side,
        kind: TimerKind,
    },
    /// A wake-up an app asked for.
    App { app: AppId, tag: u32 },
    /// Time to sample a time series.
    Sample(SeriesKind),
}

impl From<NetEv> for Ev {
    #[inline]
    fn from(e: NetEv) -> Ev {
        Ev::Net(e)
    }
}

/// Per-connection facts the results need.
pub struct ConnMeta {
    /// The flow's number in the results (`flows.id`): the slot for the connections built
    /// with the world; a workload's flows are numbered on from there as they arrive.
    pub id: u32,
    /// The client's and the listener's hosts.
    pub from: NodeId,
    pub to: NodeId,
    pub start: SimTime,
    pub stop: Option<SimTime>,
    /// The app that uses the connection.
    pub app: AppId,
    /// The port by which the client's packets leave its host, when a segment its qdisc
    /// would drop is to stay unsent (`[host] local_cwr`); `u32::MAX` otherwise.
    pub nic: u32,
    /// Closed, its endpoint state freed, once its last byte is acknowledged (a workload's
    /// flow, `conn::Conn`).
    pub ephemeral: bool,
}

pub struct Sim {
    pub scenario: Scenario,
    pub q: EventQueue<Ev>,
    pub net: Network,
    pub pool: PacketPool,
    /// The transport arena: both endpoints of every connection.
    pub conns: Vec<Conn>,
    pub conn_meta: Vec<ConnMeta>,
    /// Per connection, [`ConnMeta::nic`] (kept apart, compact, for the per-packet path).
    pub(crate) conn_nic: Vec<u32>,
    /// Per slot, which connection it holds (compact, for the per-packet check).
    pub(crate) conn_key: Vec<ConnKey>,
    /// Per connection, does its app want [`App::on_delivered`] (`wants_deliveries`, fixed
    /// per app)? Kept apart, compact, for the per-packet path: asking the app reads the
    /// connection's `ConnMeta` and then the app, two cache misses per data packet on a
    /// dumbbell of 1,000 senders.
    pub(crate) conn_deliveries: Vec<bool>,
    /// Slots of closed connections, the next connection of a workload takes the last one.
    free_conns: Vec<u32>,
    /// The number the next workload flow gets ([`ConnMeta::id`]).
    pub(crate) next_flow_id: u32,
    /// The ports of every 4-tuple (the world's connections and the workloads').
    pub(crate) ports: crate::transport::PortAllocator,
    /// The rows of the workload flows that finished.
    pub flow_log: crate::results::FlowLog,
    /// Do new connections take the slots of closed ones? (Always, except in a test that
    /// shows that reuse changes no result.)
    pub reuse_slots: bool,
    pub apps: Vec<AnyApp>,
    pub probes: Probes,
    /// Raised from outside (a Ctrl-C handler) to end the run early.
    pub stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    io: Io,
    cmds: Vec<Cmd>,
}

/// [`Sim::prep_io`] over the fields it needs (so a caller may hold a packet of the pool).
#[inline]
fn prep_io(io: &mut Io, net: &mut Network, nics: &[u32], conn: u32, side: Side) {
    // Only a sender sends data; a receiver's ACKs are not held back.
    let nic = match side {
        Side::Client => nics[conn as usize],
        Side::Server => u32::MAX,
    };
    if nic != u32::MAX {
        // What the NIC sent by now has left the sender's count (TCP small queues).
        net.host.settle_tsq(nic, io.now);
    }
    io.below = net.host.tsq.below(conn);
    io.local_room = if nic == u32::MAX {
        u32::MAX
    } else {
        net.port_now(nic, io.now).qdisc.room(1500)
    };
}

/// Run `$body` with `$cx`, a `NetCtx` over the simulator's pool, queue and tap (the pcap
/// capture when there is one; monomorphised, so no capture costs nothing).
macro_rules! with_net {
    ($s:ident, $cx:ident => $body:expr) => {
        match $s.probes.capture.as_deref_mut() {
            Some(cap) => {
                let mut $cx = NetCtx {
                    pool: &mut $s.pool,
                    q: &mut $s.q,
                    tap: cap,
                };
                $body
            }
            None => {
                let mut $cx = NetCtx {
                    pool: &mut $s.pool,
                    q: &mut $s.q,
                    tap: &mut NoTap,
                };
                $body
            }
        }
    };
}

impl Sim {
    /// An empty simulator over `net`, to be populated by `world::build`.
    pub(crate) fn empty(sc: &Scenario, net: Network) -> Sim {
        Sim {
            scenario: sc.clone(),
            q: EventQueue::new(),
            net,
            pool: PacketPool::default(),
            conns: Vec::new(),
            conn_meta: Vec::new(),
            conn_nic: Vec::new(),
            conn_deliveries: Vec::new(),
            conn_key: Vec::new(),
            free_conns: Vec::new(),
            next_flow_id: 0,
            ports: Default::default(),
            flow_log: crate::results::FlowLog::new(),
            reuse_slots: true,
            apps: Vec::new(),
            probes: Probes::default(),
            stop: None,
            io: Io::new(0),
            cmds: Vec::new(),
        }
    }

    /// The TCP connection `conn` (panics if it is not TCP).
    pub fn tcp(&self, conn: usize) -> &TcpConn {
        self.conns[conn].tcp().expect("a TCP connection")
    }

    /// The packets on `port`'s link, in the order they arrive at its far end: (arrival
    /// time, packet). The head's `Arrive` event carries it (`NetEv::Arrive`), the rest wait
    /// in the port's `wire`. It walks the event queue: for inspection, not for a hop.
    /// Empty for a port the network does not have.
    pub fn on_wire(&self, port: PortId) -> Vec<(SimTime, PktId)> {
        let mut on = Vec::new();
        let Some(pr) = self.net.ports().get(port as usize) else {
            return on;
        };
        self.q.for_each_pending(|t, ev| {
            if let Ev::Net(NetEv::Arrive { port: p, id }) = *ev {
                if p == port {
                    on.push((t, id));
                }
            }
        });
        debug_assert!(on.len() <= 1, "one Arrive event per link");
        on.extend(pr.wire.iter().copied());
        on
    }

    /// Run until the scenario's duration.
    pub fn run(&mut self) {
        let end = self.scenario.duration;
        self.run_until(end);
    }

    /// Process every event up to and including time `until`, or until `stop` is raised
    /// (looked at every 65,536 events; the clock then stays where it was).
    pub fn run_until(&mut self, until: SimTime) {
        self.net.seal(self.q.now());
        self.step_until(until);
        // What the ports hold is read after a run: bring the direct ones up to the end.
        self.net.settle_all(self.q.now());
    }

    /// [`Sim::run_until`]'s event loop without its two walks over every port (sealing
    /// the ports' modes before, settling the direct ports after): for a caller that runs
    /// in slices and reads only the clock between them, as the runner does for its
    /// progress bar and Ctrl-C. It calls `net.seal` before the first slice and
    /// `net.settle_all` after the last, and changes nothing in between. On a dumbbell of
    /// 1,000 senders (4,002 ports of 384 bytes) the two walks at each of the runner's 200
    /// slices were a quarter of the run's last-level cache misses (valgrind's model).
    pub fn step_until(&mut self, until: SimTime) {
        let prefetch = self.net.prefetch;
        let mut n: u32 = 0;
        while let Some((_, ev)) = self.q.pop_until(until) {
            if prefetch {
                // A hop's first reads, the arriving link's port and its packet, are misses
                // on a busy fabric, each waited for; started for the next arrival while
                // this event runs, they overlap with its work (`Network::prefetch`).
                if let Some(&Ev::Net(NetEv::Arrive { port, id })) = self.q.peek_near() {
                    self.net.prefetch_port(port);
                    self.pool.prefetch(id);
                }
            }
            self.dispatch(ev);
            n = n.wrapping_add(1);
            if n & 0xffff == 0 && self.stopped() {
                return;
            }
        }
        self.q.advance_to(until);
    }

    /// Has someone asked the run to stop (Ctrl-C)?
    pub fn stopped(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed))
    }

    #[inline]
    fn dispatch(&mut self, ev: Ev) {
        match ev {
            Ev::Net(e) => match with_net!(self, cx => self.net.on_event(e, &mut cx)) {
                NetOut::Deliver(node, id) => self.deliver(node, id),
                NetOut::Nothing => {}
                NetOut::Ready => self.deliver_ready(),
                NetOut::TsqWake(conn) => self.tsq_wake(conn),
            },
            Ev::Timer {
                conn,
                gen,
                side,
                kind,
            } => {
                if gen != self.conn_key[conn as usize].gen {
                    return; // its connection closed
                }
                if !kind.is_tcp() {
                    return self.other_timer(conn, side, kind);
                }
                self.io.now = self.q.now();
                self.prep_io(conn, side);
                self.conns[conn as usize].on_timer(side, kind, &mut self.io);
                self.flush(conn, side);
            }
            Ev::App { app, tag } => self.app_call(app, |a, cx| a.on_event(tag, cx)),
            Ev::Sample(k) => {
                let now = self.q.now();
                if k == SeriesKind::Queue {
                    // The sampled ports' queues, brought up to now (direct ports).
                    for &pid in &self.probes.sampler.ports {
                        self.net.settle(pid, now);
                    }
                }
                let next = self.probes.sampler.sample(
                    k,
                    now,
                    &self.conns,
                    &self.net,
                    &mut self.probes.series,
                );
                if let Some(t) = next {
                    self.q.schedule(t, Ev::Sample(k));
                }
            }
        }
    }

    /// Deliver what the network made ready at once (GRO's flushes).
    #[inline(never)]
    fn deliver_ready(&mut self) {
        while !self.net.host.ready.is_empty() {
            let mut ready = std::mem::take(&mut self.net.host.ready);
            for (node, id) in ready.drain(..) {
                self.deliver(node, id);
            }
            if self.net.host.ready.is_empty() {
                self.net.host.ready = ready; // keep the allocation
            }
        }
    }

    /// A timer of an endpoint that is not TCP's (out of TCP's path).
    #[cold]
    #[inline(never)]
    fn other_timer(&mut self, conn: u32, side: Side, kind: TimerKind) {
        self.io.now = self.q.now();
        self.conns[conn as usize].on_timer(side, kind, &mut self.io);
        self.flush_in_order(conn);
    }

    /// Bytes of `conn`'s sender left its host while it waited for that (TCP small queues).
    #[inline(never)]
    fn tsq_wake(&mut self, conn: u32) {
        self.io.now = self.q.now();
        self.prep_io(conn, Side::Client);
        self.conns[conn as usize].on_timer(Side::Client, TimerKind::Tsq, &mut self.io);
        self.flush(conn, Side::Client);
    }

    /// Packet `id` reached its destination host `node`: hand it to its endpoint, its app
    /// or the host stack. Handled in place, no copy of the packet.
    fn deliver(&mut self, node: NodeId, id: PktId) {
        let now = self.q.now();
        let p = self.pool.get(id);
        match p.kind {
            PktKind::Tcp => {
                let conn = p.conn;
                if !self.conn_key[conn as usize].owns(p) {
                    // A straggler of a connection that closed (another may hold its slot).
                    self.pool.free(id);
                    return;
                }
                let side = Side::of_dst(p);
                self.io.now = now;
                if side == Side::Client {
                    self.probes
                        .tsg
                        .on_receive(conn, now, p, &mut self.probes.series);
                }
                prep_io(&mut self.io, &mut self.net, &self.conn_nic, conn, side);
                // The key matched, so the slot holds this TCP connection: one look at the
                // slot's variant, then the endpoint of the packet's side.
                let Some(Ends::Tcp(c)) = self.conns[conn as usize].ends_mut() else {
                    self.pool.free(id);
                    return;
                };
                let done = match side {
                    Side::Server => {
                        Endpoint::on_packet(&mut c.receiver, p, &mut self.io);
                        false
                    }
                    Side::Client => {
                        Endpoint::on_packet(&mut c.sender, p, &mut self.io);
                        self.probes.rtt.after_packet(conn, c);
                        c.sender.done_at.is_some()
                    }
                };
                self.pool.free(id);
                self.flush(conn, side);
                if done && self.conn_meta[conn as usize].ephemeral {
                    self.close(conn);
                }
                if side == Side::Server && self.conn_deliveries[conn as usize] {
                    let app = self.conn_meta[conn as usize].app;
                    self.app_call(app, |a, cx| a.on_delivered(conn, cx));
                }
            }
            _ => self.deliver_other(node, id),
        }
    }

    /// [`Sim::deliver`] for what is not TCP (out of the TCP path, which is most packets).
    #[cold]
    #[inline(never)]
    fn deliver_other(&mut self, node: NodeId, id: PktId) {
        let now = self.q.now();
        let p = self.pool.get(id);
        match p.kind {
            PktKind::Tcp => unreachable!("TCP is delivered by deliver"),
            PktKind::Ping => with_net!(self, cx => self.net.echo_reply(node, id, &mut cx)),
            PktKind::Pong | PktKind::Udp | PktKind::Flow => {
                // Replies, UDP datagrams and flow packets go to their connection's endpoint.
                let conn = p.conn;
                self.io.now = now;
                self.conns[conn as usize].on_packet(p, &mut self.io);
                self.pool.free(id);
                self.flush_in_order(conn);
            }
            PktKind::Request => {
                // A query of a request/response app, to the app of its connection.
                let app = self.conn_meta[p.conn as usize].app;
                let mut cmds = std::mem::take(&mut self.cmds);
                let mut cx = AppCx {
                    now,
                    conns: &self.conns,
                    cmds: &mut cmds,
                };
                self.apps[app as usize].on_message(p, &mut cx);
                self.pool.free(id);
                self.exec(app, cmds);
            }
        }
    }

    /// What an endpoint of `conn` is told of the host below it before a call: its bytes
    /// there (TCP small queues) and the room left in the host qdisc (local congestion).
    #[inline]
    fn prep_io(&mut self, conn: u32, side: Side) {
        prep_io(&mut self.io, &mut self.net, &self.conn_nic, conn, side);
    }

    /// Hand the packets and timers an endpoint of `conn` produced to the network (through
    /// its host's egress stage) and the queue.
    fn flush(&mut self, conn: u32, side: Side) {
        if self.io.tsq_throttled {
            self.io.tsq_throttled = false;
            let nic = self.conn_nic[conn as usize];
            self.net.host.tsq_wait(conn, nic, &mut self.q);
        }
        if self.net.host.wakes_pending() {
            // Senders released while their bytes were settled outside an event.
            self.net.host.flush_tsq_wakes(&mut self.q);
        }
        for (at, kind) in self.io.timers.drain(..) {
            let gen = self.conn_key[conn as usize].gen;
            self.q.schedule(
                at,
                Ev::Timer {
                    conn,
                    gen,
                    side,
                    kind,
                },
            );
        }
        let mut tx = std::mem::take(&mut self.io.tx);
        if side == Side::Client {
            let now = self.q.now();
            self.probes
                .tsg
                .on_send(conn, now, &tx, &mut self.probes.series);
        }
        self.egress_all(&tx);
        tx.clear();
        self.io.tx = tx;
    }

    /// Each of `ps` into the pool and to its host's egress stage. Copied once, from
    /// `io.tx` into the pool's slot (draining by value would copy each 144-byte packet
    /// twice: out of the vector, then into the slot).
    #[inline(always)]
    fn egress_all(&mut self, ps: &[Packet]) {
        for p in ps {
            let id = self.pool.alloc_copy(p);
            with_net!(self, cx => self.net.egress(p.src, id, &mut cx));
        }
    }

    /// [`Sim::flush`] for the endpoints that are not TCP's, which arm their timers with
    /// `Io::arm`: timers and packets in the order they produced them, each timer for the
    /// end it names. (They use neither TCP small queues nor the traces.)
    #[cold]
    #[inline(never)]
    fn flush_in_order(&mut self, conn: u32) {
        debug_assert_eq!(self.io.armed.len(), self.io.timers.len());
        let gen = self.conn_key[conn as usize].gen;
        let mut tx = std::mem::take(&mut self.io.tx);
        let mut sent = 0;
        for k in 0..self.io.armed.len() {
            let ((before, side), (at, kind)) = (self.io.armed[k], self.io.timers[k]);
            self.egress_all(&tx[sent..before as usize]);
            sent = before as usize;
            self.q.schedule(
                at,
                Ev::Timer {
                    conn,
                    gen,
                    side,
                    kind,
                },
            );
        }
        self.egress_all(&tx[sent..]);
        self.io.armed.clear();
        self.io.timers.clear();
        tx.clear();
        self.io.tx = tx;
    }

    /// Connection `conn`'s flow is complete: log its result row, free its endpoints and
    /// its RTT statistics, and give its slot to the next flow. What still arrives for it
    /// is ignored (its generation no longer matches the slot's).
    #[cold]
    #[inline(never)]
    fn close(&mut self, conn: u32) {
        let i = conn as usize;
        let Some(c) = self.conns[i].tcp() else { return };
        let r = collect::flow_result(self, i, c, self.q.now());
        self.flow_log.push(&r);
        self.conns[i] = Conn::FREE;
        self.probes.rtt.forget(i);
        self.net.host.tsq.forget(conn);
        self.conn_key[i].gen = self.conn_key[i].gen.wrapping_add(1);
        self.free_conns.push(conn);
    }

    /// A new TCP connection of a workload's flow, `spec.from → spec.to`, opened now: it
    /// takes the slot of a connection that closed (the last one freed whose packets have
    /// all left its host, so TCP small queues count only its own), or a new one.
    #[cold]
    #[inline(never)]
    fn connect(&mut self, app: AppId, spec: crate::app::NewConn) {
        let now = self.q.now();
        let (net, nics) = (&mut self.net, &self.conn_nic);
        let pick = self
            .free_conns
            .iter()
            .rposition(|&c| {
                // Its NIC's sent packets leave the count lazily: settle them first.
                if let Some(&nic) = nics.get(c as usize).filter(|&&n| n != u32::MAX) {
                    net.host.settle_tsq(nic, now);
                }
                net.host.tsq.below(c) == 0
            })
            .filter(|_| self.reuse_slots);
        let slot = match pick {
            Some(k) => self.free_conns.remove(k),
            None => {
                let n = self.conns.len() as u32;
                self.conns.push(Conn::FREE);
                self.conn_meta.push(ConnMeta {
                    id: 0,
                    from: 0,
                    to: 0,
                    start: 0,
                    stop: None,
                    app,
                    nic: u32::MAX,
                    ephemeral: true,
                });
                self.conn_nic.push(u32::MAX);
                self.conn_deliveries.push(false);
                self.conn_key.push(ConnKey::default());
                self.probes.rtt.grow(self.conns.len());
                n
            }
        };
        let i = slot as usize;
        let mut addr = self.addr(spec.from, spec.to, slot, spec.service, spec.cfg.dscp);
        addr.gen = self.conn_key[i].gen;
        self.conn_key[i] = ConnKey::of(&addr);
        let mut c = TcpConn::new(addr, &spec.cfg, now, Some(spec.bytes))
            .expect("a workload's configuration was checked when the world was built");
        c.sender.seed_random(self.scenario.seed);
        let nic = self.local_cwr_nic(&addr);
        if let Some(cap) = self.probes.capture.as_deref_mut() {
            cap.set_conn(slot, crate::probe::pcap::ConnPorts::of(&addr, &spec.cfg));
        }
        self.conns[i] = Conn::new(Ends::Tcp(c));
        self.conn_nic[i] = nic;
        self.conn_deliveries[i] = self.apps[app as usize].wants_deliveries();
        self.conn_meta[i] = ConnMeta {
            id: self.next_flow_id,
            from: spec.from,
            to: spec.to,
            start: now,
            stop: None,
            app,
            nic,
            ephemeral: true,
        };
        self.next_flow_id += 1;
        self.io.now = now;
        self.prep_io(slot, Side::Client);
        self.conns[i].open(&mut self.io);
        self.flush(slot, Side::Client);
    }

    /// The 4-tuple of a new connection `client → server` to `service` in slot `conn`.
    pub(crate) fn addr(
        &mut self,
        client: NodeId,
        server: NodeId,
        conn: u32,
        service: u16,
        dscp: u8,
    ) -> crate::tcp::Addr {
        let (sport, dport) = self.ports.allocate(client, server, service);
        crate::tcp::Addr {
            client,
            server,
            conn,
            sport,
            dport,
            hash: crate::net::flow_hash(client, server, sport, dport, 6),
            dscp,
            gen: 0,
        }
    }

    /// The port by which `a`'s client sends, when `[host] local_cwr` holds back what its
    /// qdisc would drop; `u32::MAX` otherwise.
    pub(crate) fn local_cwr_nic(&self, a: &crate::tcp::Addr) -> u32 {
        if self.scenario.host.local_cwr {
            self.net
                .routes
                .next_port(a.client, a.server, a.hash)
                .unwrap_or(u32::MAX)
        } else {
            u32::MAX
        }
    }

    /// Call app `app` with `f`, then carry out the commands it gave, in order.
    pub(crate) fn app_call(&mut self, app: AppId, f: impl FnOnce(&mut AnyApp, &mut AppCx)) {
        let mut cmds = std::mem::take(&mut self.cmds);
        let mut cx = AppCx {
            now: self.q.now(),
            conns: &self.conns,
            cmds: &mut cmds,
        };
        f(&mut self.apps[app as usize], &mut cx);
        self.exec(app, cmds);
    }

    /// Carry out an app's commands; `cmds` comes back empty into `self.cmds`.
    fn exec(&mut self, app: AppId, mut cmds: Vec<Cmd>) {
        let now = self.q.now();
        for c in cmds.drain(..) {
            match c {
                Cmd::Open(conn) => {
                    self.io.now = now;
                    self.prep_io(conn, Side::Client);
                    self.conns[conn as usize].open(&mut self.io);
                    if self.io.armed.is_empty() {
                        self.flush(conn, Side::Client);
                    } else {
                        // Not TCP: its first timers (`Io::arm`).
                        self.flush_in_order(conn);
                    }
                }
                Cmd::Write(conn, bytes) => {
                    self.io.now = now;
                    self.prep_io(conn, Side::Client);
                    self.conns[conn as usize].write(bytes, &mut self.io);
                    self.flush(conn, Side::Client);
                }
                Cmd::Stop(conn) => self.conns[conn as usize].stop(),
                Cmd::Send(node, p) => {
                    let id = self.pool.alloc(p);
                    with_net!(self, cx => self.net.egress(node, id, &mut cx));
                }
                Cmd::Wake(at, tag) => self.q.schedule(at, Ev::App { app, tag }),
                Cmd::Connect(spec) => self.connect(app, spec),
            }
        }
        self.cmds = cmds;
    }

    /// Capture into `<dir>/<name>.pcap` for each host or link in `names` (`probe::pcap`).
    pub fn attach_pcap(
        &mut self,
        names: &[String],
        dir: &std::path::Path,
        snaplen: u32,
    ) -> Result<(), String> {
        if !names.is_empty() {
            std::fs::create_dir_all(dir).map_err(|e| format!("pcap {}: {e}", dir.display()))?;
        }
        let at: Vec<(String, std::path::PathBuf)> = names
            .iter()
            .map(|n| (n.clone(), dir.join(format!("{n}.pcap"))))
            .collect();
        self.attach_pcap_at(&at, snaplen)
    }

    /// Capture each host or link `name` into its `path`, with each connection's own ports,
    /// MSS, window scale and SACK setting.
    pub fn attach_pcap_at(
        &mut self,
        at: &[(String, std::path::PathBuf)],
        snaplen: u32,
    ) -> Result<(), String> {
        use crate::probe::pcap::ConnPorts;
        let mut cap = crate::probe::pcap::Capture::open_at(&self.net, at, snaplen)?;
        for (i, c) in self.conns.iter().enumerate() {
            // The other transports' identifiers on the wire are their apps' numbers: a
            // ping's echo identifier, a UDP flow's ports, an Ouroboros flow's endpoint id.
            let ports = match c.ends() {
                Some(Ends::Tcp(t)) => ConnPorts::of(&t.sender.addr, t.sender.config()),
                Some(Ends::Ping(_) | Ends::Udp(_) | Ends::Ocbr(_)) => {
                    ConnPorts::default_for(self.conn_meta[i].app)
                }
                None => continue,
            };
            cap.set_conn(i as u32, ports);
        }
        self.probes.capture = Some(Box::new(cap));
        Ok(())
    }

    /// Flush and close the pcap files; their names and counters.
    pub fn finish_pcap(
        &mut self,
    ) -> Result<Vec<(String, crate::probe::pcap::CaptureStats)>, String> {
        match self.probes.capture.take() {
            Some(c) => c.finish_at(self.q.now()),
            None => Ok(Vec::new()),
        }
    }

    /// Collect the results of the run so far (`sim/collect.rs`).
    pub fn results(&self) -> RunResult {
        collect::collect(self)
    }

    /// [`Sim::results`], with an error instead of a panic if the finished flows' rows
    /// cannot be read back from their temporary file.
    pub fn try_results(&self) -> Result<RunResult, String> {
        collect::try_collect(self)
    }

    /// What the user should know about a run that still gave its results: the finished
    /// flows' rows stayed in memory because their temporary file could not be written.
    pub fn warnings(&self) -> Vec<String> {
        self.flow_log
            .spill_error()
            .map(|e| {
                format!(
                    "{e}; the finished flows' rows were kept in memory instead, which grew with them (the results are complete)"
                )
            })
            .into_iter()
            .collect()
    }
}

#[cfg(test)]
mod tests;
