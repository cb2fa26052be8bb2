//! A link whose capacity is a list of delivery opportunities instead of a rate: a
//! Mahimahi trace (`rate = { trace = "file" }`) or a synthetic one generated from the
//! run's seed (`markov`, `onoff`). It sits behind the port's own discipline (any of them),
//! as mm-link's `LinkQueue` sits behind its `AbstractPacketQueue`.
//!
//! Delivery follows mm-link (ravinet/mahimahi `src/frontend/link_queue.cc`,
//! `LinkQueue::rationalize`, commit ae477d4):
//!
//! - each opportunity carries 1504 bytes (`PACKET_SIZE`, "default max TUN payload
//!   size"), and a packet costs its IP length plus the 4-byte packet-information header
//!   mm-link's TUN device (`IFF_TUN` without `IFF_NO_PI`) puts in front of it: a
//!   1500-byte packet takes one opportunity whole;
//! - at an opportunity the packet in transit goes on, then packets are taken from the
//!   queue while bytes are left: several small packets share one opportunity, and a
//!   packet larger than what is left takes it and the next ones (it is dequeued at the
//!   first, delivered at the one that carries its last byte);
//! - a packet leaves at the time of the opportunity that carries its last byte, with no
//!   serialisation time of its own (the port's is zero: `Port::set_zero_time`);
//! - an opportunity that finds nothing to send is lost, and bytes left over in one are
//!   lost unless packets already queued use them;
//! - before a packet is queued, every opportunity up to its arrival time is spent first
//!   (`read_packet` calls `rationalize(now)`): an opportunity at the very instant a packet
//!   arrives does not carry it.
//!
//! The discipline is asked for a packet at the opportunity's time, as mm-link's queue is,
//! so an AQM measures its sojourn times against the link's deliveries. What the port
//! counts as its backlog is everything not yet delivered: the discipline's queue, the
//! packet in transit and what has been delivered at this instant but not yet handed on.

pub mod mahimahi;

use super::{Backlog, Deq, Mark, PktMeta, Qdisc, QueueDisc, Verdict};
use crate::engine::{Rng, SimTime, MS, SEC};
use crate::packet::PktId;
use std::collections::VecDeque;
use std::sync::Arc;

/// Bytes one delivery opportunity carries (mm-link's `PACKET_SIZE`).
pub const OPPORTUNITY_BYTES: u32 = 1504;
/// What mm-link's TUN device adds to every IP packet (struct tun_pi).
pub const TUN_HEADER: u32 = 4;
/// The IP bytes of a full-size packet, the unit rates of generated links are given in.
const MTU: u64 = 1500;

/// The two-state Markov model of a cellular (or, with a silent state, Wi-Fi-like) link:
/// the link stays in a state for an exponentially distributed time with the state's mean,
/// then switches; in a state with rate r, opportunities come r / (1500 × 8) per second,
/// evenly spaced or as a Poisson process.
#[derive(Clone, Debug, PartialEq)]
pub struct Markov {
    /// Rates of the two states, in bit/s of 1500-byte packets (0: the link is silent).
    pub rate: [u64; 2],
    /// Mean sojourn time in each state.
    pub mean: [SimTime; 2],
    /// Opportunities as a Poisson process (else evenly spaced).
    pub poisson: bool,
}

impl Markov {
    /// The long-run mean rate: each state's rate weighted by the share of time spent in it.
    pub fn mean_bps(&self) -> u64 {
        let w = self.mean[0] as u128 + self.mean[1] as u128;
        let r = (self.rate[0] as u128 * self.mean[0] as u128
            + self.rate[1] as u128 * self.mean[1] as u128)
            / w.max(1);
        (r as u64).max(1)
    }
}

/// Where a link's opportunities come from.
#[derive(Clone, Debug, PartialEq)]
pub enum RateSource {
    /// A Mahimahi trace (the file, as the scenario named it and as it was read, and its
    /// timestamps), looping.
    Trace(crate::schema::InputFile, Arc<mahimahi::Trace>),
    Markov(Markov),
}

impl RateSource {
    /// The mean rate, in bit/s of 1500-byte packets (the port's nominal `rate_bps`).
    pub fn mean_bps(&self) -> u64 {
        match self {
            RateSource::Trace(_, t) => t.mean_bps(),
            RateSource::Markov(m) => m.mean_bps(),
        }
    }
}

/// A running source: the next opportunity on each call.
#[derive(Clone, Debug)]
enum Opportunities {
    Trace {
        trace: Arc<mahimahi::Trace>,
        /// The next line, and the time its trace period started.
        next: usize,
        base: SimTime,
    },
    Markov {
        m: Markov,
        rng: Rng,
        state: usize,
        /// The current state ends then.
        until: SimTime,
        /// The last opportunity (or the state's start).
        last: SimTime,
    },
}

/// An exponentially distributed time of mean `mean` picoseconds.
fn exp(rng: &mut Rng, mean: f64) -> SimTime {
    // 1 − U is in (0, 1]: the logarithm is finite.
    (-(1.0 - rng.uniform()).ln() * mean).round() as SimTime
}

impl Opportunities {
    fn new(src: &RateSource, mut rng: Rng) -> Opportunities {
        match src {
            RateSource::Trace(_, t) => Opportunities::Trace {
                trace: t.clone(),
                next: 0,
                base: 0,
            },
            RateSource::Markov(m) => {
                // The first state is drawn from the chain's stationary distribution.
                let share = m.mean[0] as f64 / (m.mean[0] + m.mean[1]) as f64;
                let state = if rng.uniform() < share { 0 } else { 1 };
                let until = exp(&mut rng, m.mean[state] as f64);
                Opportunities::Markov {
                    m: m.clone(),
                    rng,
                    state,
                    until,
                    last: 0,
                }
            }
        }
    }

    /// The next opportunity's time (never decreasing).
    fn next(&mut self) -> SimTime {
        match self {
            Opportunities::Trace { trace, next, base } => {
                let t = *base + trace.ms[*next] * MS;
                *next += 1;
                if *next == trace.ms.len() {
                    // mm-link's wraparound: the next period starts at the last timestamp.
                    *next = 0;
                    *base += trace.period_ms() * MS;
                }
                t
            }
            Opportunities::Markov {
                m,
                rng,
                state,
                until,
                last,
            } => loop {
                let rate = m.rate[*state];
                if rate > 0 {
                    // Picoseconds per 1500-byte packet at this state's rate.
                    let gap = (MTU * 8 * SEC) as f64 / rate as f64;
                    let step = if m.poisson {
                        exp(rng, gap)
                    } else {
                        gap.round() as SimTime
                    };
                    let t = *last + step.max(1);
                    if t < *until {
                        *last = t;
                        return t;
                    }
                }
                // The state ends before its next opportunity: the other one begins (a
                // Poisson process restarts memorylessly; an even spacing restarts with it).
                *last = *until;
                *state = 1 - *state;
                *until += exp(rng, m.mean[*state] as f64).max(1);
            },
        }
    }
}

/// How many opportunities `src`, drawn from `rng` as a port's link draws them, gives in
/// (from, to]: the capacity a run's link had (experiments judge utilisation against it).
pub fn count_opportunities(src: &RateSource, rng: Rng, from: SimTime, to: SimTime) -> u64 {
    let mut o = Opportunities::new(src, rng);
    let mut n = 0;
    loop {
        let t = o.next();
        if t > to {
            return n;
        }
        if t > from {
            n += 1;
        }
    }
}

/// The port's discipline with a trace-driven link behind it (see the module's comment).
pub struct LinkRate {
    child: Qdisc,
    opps: Opportunities,
    /// The next opportunity not yet spent.
    next: SimTime,
    /// The packet being delivered, its mark, and the bytes of it still to deliver.
    transit: Option<(PktId, Mark, u32)>,
    /// Delivered at `now` (its opportunity), waiting for the port to take them.
    ready: VecDeque<(PktId, Mark)>,
    /// What `transit` and `ready` hold.
    held: Backlog,
    /// IP length of each packet the discipline holds, by id (packets are slab indices).
    lens: Vec<u32>,
    /// Packets the discipline dropped while it was asked outside `dequeue` (at an arrival
    /// that spent an opportunity first): handed to the port at its next `dequeue`.
    late_drops: Vec<PktId>,
}

impl LinkRate {
    /// `child` behind a link whose opportunities come from `src`, drawn from `rng`.
    pub fn new(child: Qdisc, src: &RateSource, rng: Rng) -> LinkRate {
        let mut opps = Opportunities::new(src, rng);
        let next = opps.next();
        LinkRate {
            child,
            opps,
            next,
            transit: None,
            ready: VecDeque::new(),
            held: Backlog::default(),
            lens: Vec::new(),
            late_drops: Vec::new(),
        }
    }

    /// The discipline in front of the link.
    pub fn child(&self) -> &Qdisc {
        &self.child
    }

    /// mm-link's `rationalize(now)`: spend every opportunity up to `now`.
    fn rationalize(&mut self, now: SimTime, drops: &mut Vec<PktId>) {
        while self.next <= now {
            let at = self.next;
            self.next = self.opps.next();
            if self.transit.is_none() && self.child.pkts() == 0 {
                // An opportunity with nothing to send is lost.
                continue;
            }
            let mut left = OPPORTUNITY_BYTES;
            while left > 0 {
                let (id, mark, rest) = match self.transit.take() {
                    Some(t) => t,
                    None => match self.child.dequeue(at, drops) {
                        Deq::Packet(id, mark) => {
                            let len = self.lens[id as usize];
                            self.held.bytes += len as u64;
                            self.held.pkts += 1;
                            (id, mark, len + TUN_HEADER)
                        }
                        // Nothing the discipline will give now: the rest is lost.
                        Deq::Empty | Deq::NotBefore(_) => break,
                    },
                };
                let sent = left.min(rest);
                left -= sent;
                if rest > sent {
                    self.transit = Some((id, mark, rest - sent));
                } else {
                    self.ready.push_back((id, mark));
                }
            }
        }
    }
}

impl QueueDisc for LinkRate {
    fn enqueue(&mut self, id: PktId, m: &PktMeta) -> Verdict {
        if m.segs > 1 {
            // mm-link sees the packets of the wire, never an offload aggregate.
            return Verdict::Segment;
        }
        let mut drops = std::mem::take(&mut self.late_drops);
        self.rationalize(m.now, &mut drops);
        self.late_drops = drops;
        let v = self.child.enqueue(id, m);
        if let Verdict::Queue(_) = v {
            let i = id as usize;
            if i >= self.lens.len() {
                self.lens.resize((i + 1).next_power_of_two(), 0);
            }
            self.lens[i] = m.len;
        }
        v
    }

    fn dequeue(&mut self, now: SimTime, drops: &mut Vec<PktId>) -> Deq {
        drops.append(&mut self.late_drops);
        self.rationalize(now, drops);
        if let Some((id, mark)) = self.ready.pop_front() {
            let len = self.lens[id as usize];
            self.held.bytes -= len as u64;
            self.held.pkts -= 1;
            return Deq::Packet(id, mark);
        }
        if self.transit.is_some() || self.child.pkts() > 0 {
            Deq::NotBefore(self.next)
        } else {
            Deq::Empty
        }
    }

    /// The link went down: what it was delivering (the packet in transit, those delivered
    /// but not yet taken) is dropped with what the discipline holds and the drops not yet
    /// handed on; its opportunities go on in time (mm-link's trace does not stop), spent
    /// on nothing until packets come again.
    fn reset(&mut self, now: SimTime, drops: &mut Vec<PktId>) {
        drops.append(&mut self.late_drops);
        drops.extend(self.transit.take().map(|t| t.0));
        drops.extend(self.ready.drain(..).map(|r| r.0));
        self.held = Backlog::default();
        self.child.reset(now, drops);
    }

    fn backlog(&self) -> Backlog {
        let c = self.child.backlog();
        Backlog {
            bytes: c.bytes + self.held.bytes,
            pkts: c.pkts + self.held.pkts,
        }
    }

    fn peek_len(&self) -> Option<u32> {
        match (self.ready.front(), self.transit) {
            (Some(&(id, _)), _) | (None, Some((id, _, _))) => Some(self.lens[id as usize]),
            (None, None) => self.child.peek_len(),
        }
    }

    fn orphans(&self) -> bool {
        self.child.orphans()
    }

    fn room(&self, len: u32) -> u32 {
        self.child.room(len)
    }

    fn start(&mut self, rng: &mut Rng) -> Option<SimTime> {
        self.child.start(rng)
    }

    fn on_timer(&mut self, now: SimTime) -> Option<SimTime> {
        self.child.on_timer(now)
    }
}

#[cfg(test)]
mod tests;
