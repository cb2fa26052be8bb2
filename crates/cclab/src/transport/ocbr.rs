//! The ocbr tool (`src/tools/ocbr`, Ouroboros prototype 0.18.0) over one Ouroboros flow
//! (`flow/endpoint.rs`), as the flow's two endpoints: the client writing into the flow's
//! sending end, the server reading from its receiving end. The `ocbr` app (`app/ocbr.rs`)
//! configures them, starts them, samples the sender's statistics and reports.
//!
//! - **Client** (`ocbr_client.c`): writes `size` bytes (`-s`) and then sleeps
//!   `size · 8 / rate` (`-r`; the time the write took is not compensated), or with `flood`
//!   (`-f`) writes as fast as the flow takes them; from `start` until `stop` (`-d`). A
//!   write blocks while the flow's ring of 1024 packets is full, and goes on when the
//!   flow's thread takes a packet.
//! - **Server** (`ocbr_server.c`, `handle_flow`): a loop that reads the clock, reads one
//!   packet (a read gives up after 100 ms, `FLOWSRCVTIMEO`), counts it, and — with the
//!   clock value read *before* the read — prints the interval once `ts_diff_ms(now,
//!   iv_end) < 0`: `us = ts_diff_us(iv_start, now)`, then the next interval starts at the
//!   old end. `ts_diff_ms` truncates the nanosecond difference to whole ms, so a line is
//!   printed only when the clock is a full millisecond past the interval's end (less
//!   when a second boundary falls in between): that is why the seed's 100 ms intervals
//!   print as `101 ms`. The clock is `CLOCK_REALTIME`; ours starts at the Unix epoch with
//!   the run. *[Chosen: flow allocation is not simulated; the server accepts the flow
//!   ("New flow.") when its first packet arrives.]*
//! - FLOW_UPDATEs the receiving end sends may be lost on their way back, each with
//!   probability `update_loss`, drawn from the flow's own random stream.

use crate::engine::{secs, Rng, SimTime, MS, NS};
use crate::flow::endpoint::{FlowIo, FlowReceiver, FlowSender, FLOW_UPDATE};
use crate::flow::text::ocbr_line;
use crate::packet::Packet;
use crate::transport::{Endpoint, Io, Side, TimerKind};
use serde::Serialize;

/// One interval the ocbr server printed.
#[derive(Clone, Debug, Serialize)]
pub struct OcbrInterval {
    /// When the line was printed (the run's clock), s.
    pub end_s: f64,
    pub packets: u64,
    pub bytes: u64,
    /// The interval's length as the server measured it, µs.
    pub us: u64,
    pub mbps: f64,
}

/// A clock reading as `struct timespec` (seconds, nanoseconds) of `CLOCK_REALTIME`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ts {
    sec: i64,
    nsec: i64,
}

impl Ts {
    fn at(t: SimTime) -> Ts {
        let ns = (t / NS) as i64;
        Ts {
            sec: ns / 1_000_000_000,
            nsec: ns % 1_000_000_000,
        }
    }
    fn add(self, d: SimTime) -> Ts {
        let n = self.nsec + (d / NS) as i64;
        Ts {
            sec: self.sec + n / 1_000_000_000,
            nsec: n % 1_000_000_000,
        }
    }
    #[cfg(test)]
    fn sim(self) -> SimTime {
        (self.sec * 1_000_000_000 + self.nsec) as SimTime * NS
    }
}

/// `ts_diff_ms(t0, tx)` and `ts_diff_us(t0, tx)` of `time_utils.h`: the second and
/// nanosecond differences apart, the latter truncated toward zero.
fn ts_diff_ms(t0: Ts, tx: Ts) -> i64 {
    (tx.sec - t0.sec) * 1000 + (tx.nsec - t0.nsec) / 1_000_000
}
fn ts_diff_us(t0: Ts, tx: Ts) -> i64 {
    (tx.sec - t0.sec) * 1_000_000 + (tx.nsec - t0.nsec) / 1000
}

/// The read timeout of the server's loop (`tic`).
const TIC: SimTime = 100 * MS;

/// `handle_flow`'s loop for one flow.
#[derive(Debug)]
pub struct Server {
    /// The server's number for the flow (`Flow 64`).
    pub fd: u32,
    interval: SimTime,
    /// When the loop's current read began (its `now`).
    read_since: Option<SimTime>,
    iv_start: Ts,
    iv_end: Ts,
    packets: u64,
    bytes: u64,
    packets_intv: u64,
    bytes_intv: u64,
    /// What it printed, line by line, and the intervals of those lines.
    pub lines: Vec<String>,
    pub intervals: Vec<OcbrInterval>,
}

impl Server {
    /// One pass of the loop that began at `now`, having read `got` bytes (None: timed
    /// out).
    fn pass(&mut self, now: SimTime, got: Option<u32>) {
        if let Some(b) = got {
            self.packets += 1;
            self.bytes += b as u64;
        }
        let n = Ts::at(now);
        if ts_diff_ms(n, self.iv_end) < 0 {
            let us = ts_diff_us(self.iv_start, n).max(1) as u64;
            let (p, b) = (
                self.packets - self.packets_intv,
                self.bytes - self.bytes_intv,
            );
            self.lines.push(ocbr_line(self.fd, p, b, us));
            self.intervals.push(OcbrInterval {
                end_s: secs(now),
                packets: p,
                bytes: b,
                us,
                mbps: 8.0 * b as f64 / us as f64,
            });
            self.iv_start = self.iv_end;
            self.packets_intv = self.packets;
            self.bytes_intv = self.bytes;
            self.iv_end = self.iv_start.add(self.interval);
        }
    }

    /// Run the loop's passes that time out before `t`.
    fn idle_until(&mut self, t: SimTime) {
        if let Some(mut s) = self.read_since {
            while t > s + TIC {
                self.pass(s, None);
                s += TIC;
            }
            self.read_since = Some(s);
        }
    }

    /// A packet of `bytes` arrived at `t`.
    fn arrive(&mut self, t: SimTime, bytes: u32) {
        match self.read_since {
            None => {
                self.lines.push("New flow.".to_string());
                self.iv_start = Ts::at(t);
                self.iv_end = self.iv_start.add(self.interval);
                self.pass(t, Some(bytes));
            }
            Some(_) => {
                self.idle_until(t);
                let s = self.read_since.unwrap_or(t);
                self.pass(s, Some(bytes));
            }
        }
        self.read_since = Some(t);
    }
}

impl Server {
    /// Flow `fd`'s loop before its first packet.
    pub fn new(fd: u32, interval: SimTime) -> Server {
        Server {
            fd,
            interval,
            read_since: None,
            iv_start: Ts::at(0),
            iv_end: Ts::at(0),
            packets: 0,
            bytes: 0,
            packets_intv: 0,
            bytes_intv: 0,
            lines: Vec::new(),
            intervals: Vec::new(),
        }
    }

    /// What the loop printed, and the intervals of those lines, as they are at `now`: the
    /// loop goes on timing out while no packet comes.
    pub fn output_at(&self, now: SimTime) -> (Vec<String>, Vec<OcbrInterval>) {
        let mut lines = self.lines.clone();
        let mut intervals = self.intervals.clone();
        let mut tail = self.clone_state();
        tail.idle_until(now);
        lines.append(&mut tail.lines);
        intervals.append(&mut tail.intervals);
        (lines, intervals)
    }

    /// The loop's state without what it printed so far.
    fn clone_state(&self) -> Server {
        Server {
            read_since: self.read_since,
            iv_start: self.iv_start,
            iv_end: self.iv_end,
            packets: self.packets,
            bytes: self.bytes,
            packets_intv: self.packets_intv,
            bytes_intv: self.bytes_intv,
            ..Server::new(self.fd, self.interval)
        }
    }
}

/// ocbr's client over the flow's sending end.
#[derive(Debug)]
pub struct OcbrClient {
    pub flow: FlowSender,
    io: FlowIo,
    pub start: SimTime,
    /// The client stops writing (`-d` after the start).
    pub stop: SimTime,
    /// Time between writes without `flood`: `size · 8 / rate`.
    pub gap: SimTime,
    pub flood: bool,
    /// The client's write is blocked on a full ring.
    blocked: bool,
}

impl OcbrClient {
    pub fn new(
        flow: FlowSender,
        (start, stop): (SimTime, SimTime),
        gap: SimTime,
        flood: bool,
    ) -> OcbrClient {
        OcbrClient {
            flow,
            io: FlowIo::default(),
            start,
            stop,
            gap,
            flood,
            blocked: false,
        }
    }

    /// The client starts writing at `start` and stops at `stop`.
    pub fn open(&mut self, io: &mut Io) {
        io.arm(self.start, TimerKind::Source, Side::Client);
        io.arm(self.stop, TimerKind::Source, Side::Client);
    }

    /// The client's write at `now`; the time of its next one after its sleep (`-r`), or
    /// `None` when it blocked on a full ring (it goes on when the flow's thread takes a
    /// packet) or is done.
    fn write(&mut self, now: SimTime) -> Option<SimTime> {
        if now >= self.stop {
            return None;
        }
        if self.flow.write(now, &mut self.io) {
            Some(now + self.gap)
        } else {
            self.blocked = true;
            None
        }
    }

    /// Hand over what this call produced: the client's next write, the packets, the
    /// flow thread's next turn, in that order (the order of the app's commands before
    /// the flow was an endpoint).
    fn emit(&mut self, next_write: Option<SimTime>, io: &mut Io) {
        if let Some(t) = next_write {
            io.arm(t, TimerKind::Source, Side::Client);
        }
        io.tx.append(&mut self.io.tx);
        if let Some(t) = self.io.wake.take() {
            io.arm(t, TimerKind::Ipcp, Side::Client);
        }
    }
}

impl Endpoint for OcbrClient {
    /// A FLOW_UPDATE from the receiving end.
    fn on_packet(&mut self, p: &Packet, _io: &mut Io) {
        debug_assert!(p.flags & FLOW_UPDATE != 0);
        self.flow.on_update(p.ack as u16);
    }

    fn on_timer(&mut self, kind: TimerKind, io: &mut Io) {
        let now = io.now;
        let mut next = None;
        match kind {
            TimerKind::Source if now >= self.stop => {
                // The client is done; what its ring holds still goes out.
                self.flow.stop_flood();
            }
            TimerKind::Source if self.flood => self.flow.flood(now, &mut self.io),
            TimerKind::Source => next = self.write(now),
            _ => {
                self.flow.on_timer(now, &mut self.io);
                if self.blocked && self.flow.has_room() {
                    self.blocked = false;
                    next = self.write(now);
                }
            }
        }
        self.emit(next, io);
    }
}

/// ocbr's server over the flow's receiving end.
#[derive(Debug)]
pub struct OcbrServer {
    pub flow: FlowReceiver,
    io: FlowIo,
    /// `handle_flow`'s loop.
    pub server: Server,
    /// Probability that a FLOW_UPDATE is lost on its way back, and the draws for it.
    pub update_loss: f64,
    rng: Rng,
    /// FLOW_UPDATEs lost on the way.
    pub updates_lost: u64,
}

impl OcbrServer {
    pub fn new(flow: FlowReceiver, server: Server, update_loss: f64, rng: Rng) -> OcbrServer {
        OcbrServer {
            flow,
            io: FlowIo::default(),
            server,
            update_loss,
            rng,
            updates_lost: 0,
        }
    }
}

impl Endpoint for OcbrServer {
    /// A data packet of the flow.
    fn on_packet(&mut self, p: &Packet, io: &mut Io) {
        let now = io.now;
        self.flow.on_packet(now, p, &mut self.io);
        if self.update_loss > 0.0 {
            // FLOW_UPDATEs lost on their way back, each with probability update_loss.
            let (rng, q, lost) = (&mut self.rng, self.update_loss, &mut self.updates_lost);
            self.io.tx.retain(|u| {
                let keep = u.flags & FLOW_UPDATE == 0 || !rng.bernoulli(q);
                *lost += u64::from(!keep);
                keep
            });
        }
        self.server.arrive(now, p.payload);
        io.tx.append(&mut self.io.tx);
    }

    /// The server's loop needs no timer: its read timeouts are counted when the next
    /// packet comes, or at the end.
    fn on_timer(&mut self, _kind: TimerKind, _io: &mut Io) {}
}

/// Both ends of an ocbr flow.
#[derive(Debug)]
pub struct OcbrConn {
    pub client: OcbrClient,
    pub server: OcbrServer,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::SEC;

    /// `ts_diff_ms` truncates: 0.9 ms past the end is not yet past it; 1.0 ms is; across a
    /// second boundary 0.5 ms is enough (−1000 + 999).
    #[test]
    fn the_servers_clock_arithmetic_is_cs() {
        let end = Ts {
            sec: 5,
            nsec: 50_000_000,
        };
        assert_eq!(
            ts_diff_ms(
                Ts {
                    sec: 5,
                    nsec: 50_900_000
                },
                end
            ),
            0
        );
        assert_eq!(
            ts_diff_ms(
                Ts {
                    sec: 5,
                    nsec: 51_000_000
                },
                end
            ),
            -1
        );
        let end = Ts {
            sec: 4,
            nsec: 999_500_000,
        };
        assert_eq!(ts_diff_ms(Ts { sec: 5, nsec: 0 }, end), -1);
        assert_eq!(Ts::at(5 * SEC + 7 * NS).add(SEC - 7 * NS).sim(), 6 * SEC);
    }

    /// A packet every 100 µs from t = 0 with 100 ms intervals: the first line is printed
    /// by the read that began at 101.0 ms (the first clock value a whole ms past 100 ms),
    /// counts the packets up to and including the one read then, and says 101 ms.
    #[test]
    fn intervals_print_a_millisecond_late() {
        let mut s = Server::new(64, 100 * MS);
        let step = 100 * crate::engine::US;
        for k in 0..2500u64 {
            s.arrive(k * step, 1000);
        }
        assert_eq!(s.lines[0], "New flow.");
        // The pass that began at 101.0 ms read the packet of 101.1 ms: 1012 packets.
        assert_eq!(s.lines[1], ocbr_line(64, 1012, 1_012_000, 101_000));
        assert_eq!(s.intervals[0].us, 101_000);
        // The next interval starts at 100 ms (the old end), not at 101.
        assert_eq!(s.intervals[1].us, 101_000);
        assert_eq!(s.intervals[1].packets, 1000);
    }
}
