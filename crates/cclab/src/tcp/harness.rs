//! A two-endpoint test bench for the TCP halves: one sender, one receiver, a link with a
//! rate and a one-way delay in each direction, and a filter that can drop chosen packets.
//! Used by the unit tests to check handshake, recovery, delayed-ACK and ECN behaviour
//! packet by packet (whole-network behaviour is tested through `sim`).

use super::{Addr, Receiver, Sender};
use crate::engine::{tx_time, SimTime};
use crate::packet::{Packet, CE};
use crate::tcp::config::TcpConfig;
use crate::transport::{Io, TimerKind};

/// One packet as it crossed the link.
#[derive(Clone, Debug)]
pub struct Logged {
    pub t: SimTime,
    pub to_server: bool,
    pub dropped: bool,
    pub p: Packet,
}

pub type DropFn = Box<dyn FnMut(&Packet, bool, u64) -> bool>;
pub type MarkFn = Box<dyn FnMut(&Packet, u64) -> bool>;

pub struct Bench {
    pub s: Sender,
    pub r: Receiver,
    pub now: SimTime,
    pub owd: SimTime,
    pub rate_bps: u64,
    busy: [SimTime; 2],
    /// (arrival time, order, to_server, packet)
    wire: Vec<(SimTime, u64, bool, Packet)>,
    /// (time, order, server side?)
    timers: Vec<(SimTime, u64, bool, TimerKind)>,
    order: u64,
    /// Drop filter: (packet, to_server, index of this data packet from the sender, 1-based).
    pub drop: DropFn,
    /// CE-mark filter for data packets: (packet, index).
    pub mark: MarkFn,
    data_count: u64,
    pub log: Vec<Logged>,
}

impl Bench {
    pub fn new(cfg: &TcpConfig, owd: SimTime, rate_bps: u64, bytes: Option<u64>) -> Bench {
        Bench::pair(cfg, cfg, owd, rate_bps, bytes)
    }

    /// The one connection's address: client host 0, server host 1.
    pub const ADDR: Addr = Addr {
        client: 0,
        server: 1,
        conn: 0,
        sport: 32768,
        dport: 5201,
        hash: 0,
        dscp: 0,
        gen: 0,
    };

    /// Sender and receiver with different configurations (e.g. a DCTCP client and a Reno
    /// server).
    pub fn pair(
        cfg: &TcpConfig,
        server: &TcpConfig,
        owd: SimTime,
        rate_bps: u64,
        bytes: Option<u64>,
    ) -> Bench {
        let addr = Bench::ADDR;
        let r = Receiver::for_module(addr, server, &server.congestion_control().unwrap());
        Bench {
            s: Sender::new(
                addr,
                &std::sync::Arc::new(cfg.clone()),
                cfg.congestion_control().unwrap(),
                0,
                bytes,
            ),
            r,
            now: 0,
            owd,
            rate_bps,
            busy: [0; 2],
            wire: Vec::new(),
            timers: Vec::new(),
            order: 0,
            drop: Box::new(|_, _, _| false),
            mark: Box::new(|_, _| false),
            data_count: 0,
            log: Vec::new(),
        }
    }

    fn take(&mut self, io: Io, server: bool) {
        for (t, which) in io.timers {
            self.order += 1;
            self.timers.push((t, self.order, server, which));
        }
        for mut p in io.tx {
            let to_server = !server;
            let dir = to_server as usize;
            let start = self.busy[dir].max(self.now);
            let done = start
                + tx_time(
                    p.size as u64 + crate::net::ETH_OVERHEAD as u64,
                    self.rate_bps,
                );
            self.busy[dir] = done;
            let mut dropped = false;
            if to_server && p.payload > 0 {
                self.data_count += 1;
                if (self.mark)(&p, self.data_count) && p.is_ect() {
                    p.ecn = CE;
                }
                dropped = (self.drop)(&p, to_server, self.data_count);
            } else {
                dropped = dropped || (self.drop)(&p, to_server, 0);
            }
            self.log.push(Logged {
                t: self.now,
                to_server,
                dropped,
                p: p.clone(),
            });
            if !dropped {
                self.order += 1;
                self.wire.push((done + self.owd, self.order, to_server, p));
            }
        }
    }

    pub fn connect(&mut self) {
        let mut io = Io::new(self.now);
        self.s.connect(&mut io);
        self.take(io, false);
    }

    /// The application writes `bytes` more now (a byte-count connection).
    pub fn write(&mut self, bytes: u64) {
        let mut io = Io::new(self.now);
        self.s.app_write(bytes, &mut io);
        self.take(io, false);
    }

    /// Process events until `until`; returns false if nothing is left to do.
    pub fn run_until(&mut self, until: SimTime) -> bool {
        loop {
            let w = self
                .wire
                .iter()
                .enumerate()
                .min_by_key(|(_, e)| (e.0, e.1))
                .map(|(i, e)| (e.0, e.1, i, true));
            let t = self
                .timers
                .iter()
                .enumerate()
                .min_by_key(|(_, e)| (e.0, e.1))
                .map(|(i, e)| (e.0, e.1, i, false));
            let next = match (w, t) {
                (Some(a), Some(b)) => Some(if (a.0, a.1) <= (b.0, b.1) { a } else { b }),
                (a, b) => a.or(b),
            };
            let Some((time, _, idx, is_wire)) = next else {
                self.now = until;
                return false;
            };
            if time > until {
                self.now = until;
                return true;
            }
            self.now = time;
            let mut io = Io::new(time);
            if is_wire {
                let (_, _, to_server, p) = self.wire.swap_remove(idx);
                if to_server {
                    self.r.on_packet(&p, &mut io);
                    self.take(io, true);
                } else {
                    self.s.on_packet(&p, &mut io);
                    self.take(io, false);
                }
            } else {
                let (_, _, server, kind) = self.timers.swap_remove(idx);
                if server {
                    self.r.on_timer(&mut io);
                } else {
                    self.s.on_timer(kind, &mut io);
                }
                self.take(io, server);
            }
            if let Err(e) = self.s.check_invariants() {
                panic!("scoreboard invariant broken at t={time}: {e}");
            }
        }
    }

    /// Data packets sent by the sender (including retransmissions).
    pub fn data_sent(&self) -> impl Iterator<Item = &Logged> {
        self.log.iter().filter(|l| l.to_server && l.p.payload > 0)
    }

    /// ACKs sent by the receiver (excluding the SYN-ACK).
    pub fn acks(&self) -> impl Iterator<Item = &Logged> {
        self.log
            .iter()
            .filter(|l| !l.to_server && l.p.flags & crate::packet::SYN == 0)
    }
}

#[allow(dead_code)]
fn _assert_timer_kind(t: TimerKind) -> TimerKind {
    t
}
