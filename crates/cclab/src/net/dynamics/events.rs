//! Changes to links during a run (`[[event]]`): at a time, a link's rate, delay, random
//! loss, or whether it is up.
//!
//! ```toml
//! [[event]]
//! at = "10s"
//! set = { "topology.bottleneck.rate" = "20Mbps" }
//! ```
//!
//! The key paths name a link direction (a port: `bottleneck`, `bottleneck_rev`, `hop0`)
//! and one of its properties. What each change does:
//!
//! - `rate`: packets that start after it are serialised at the new rate (the packet being
//!   sent finishes at the old one).
//! - `delay`: packets that start after it propagate for the new delay. A link never
//!   reorders, so a shorter delay takes effect only when nothing sent before it could be
//!   overtaken: (old − new) later.
//! - `loss`: the link's random loss probability from then on (a `[[loss]]` of the link
//!   keeps its counting droppers).
//! - `up`: `false` takes the link down in both directions, as a carrier loss does on
//!   Linux with static routes: routes do not change (the path stalls, nothing
//!   reconverges: cclab's routes are static, as `ip route` ones are, and Linux keeps using
//!   a route whose device lost its carrier unless `ignore_routes_with_linkdown` is set);
//!   the device's qdisc is swapped for `noop_qdisc`, which drops every packet offered, and
//!   the discipline is reset (`dev_deactivate` → `qdisc_reset`, `QueueDisc::reset`): the
//!   packets queued are dropped, and so are those it holds back — a shaper's (tbf, htb),
//!   netem's delay line, fq's paced flows, a trace-driven link's packet in transit and
//!   those delivered but not yet taken; all counted as the port's drops. What is on the
//!   wire arrives. `true` brings it back with its discipline, empty.
//!
//! A port with a change is never direct (`Port::direct`): its transmitter runs on events,
//! so that no start time is fixed before a change. Ports without any run as before.

use super::super::forward::{NetCtx, NetEv, Tap};
use super::super::{Network, PortId};
use crate::engine::{Rng, SimTime};
use crate::packet::PktId;
use crate::qdisc::{Backlog, Deq, PktMeta, Qdisc, QueueDisc, Verdict};
use crate::schema::check::{join, Checker, Tab};
use crate::schema::{Key, Schema, Ty, REQUIRED};
use toml::Value;

/// What a change sets.
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    Rate(u64),
    Delay(SimTime),
    Loss(f64),
    Up(bool),
}

/// One change of one link direction at a time.
#[derive(Clone, Debug, PartialEq)]
pub struct EventSpec {
    pub at: SimTime,
    pub link: String,
    pub change: Change,
}

const AT: Key = Key {
    name: "at",
    ty: Ty::Time,
    default: REQUIRED,
    allowed:
        "0 or more; at or after the run's end it never happens (so a shortened run keeps its file)",
    meaning: "when the changes happen",
};

const SET: Key = Key {
    name: "set",
    ty: Ty::Text("table of key paths"),
    default: REQUIRED,
    allowed: "`\"topology.LINK.rate\"` (a rate), `\"topology.LINK.delay\"` (a time), `\"topology.LINK.loss\"` (a probability), `\"topology.LINK.up\"` (true or false); LINK a link name (`bottleneck`, `bottleneck_rev`, …)",
    meaning: "the changes: `{ \"topology.bottleneck.rate\" = \"20Mbps\" }`",
};

/// `[[event]]`.
pub static KEYS: Schema = Schema {
    title: "[[event]]",
    place: "an [[event]]",
    noun: "event",
    about: "A change to a link during the run. `rate`: what starts after it is serialised at the new rate. `delay`: what starts after it propagates for the new delay; a link never reorders, so a shorter delay takes effect (old − new) later. `loss`: the link's random loss from then on. `up = false`: the link goes down in both directions as a carrier loss does on Linux with static routes — routes stay (the path stalls; nothing reconverges), the qdisc drops what it held, what a shaper, netem or a trace-driven link held back included (`qdisc_reset`), and every packet offered (`noop_qdisc`), what is on the wire arrives; `up = true` restores it. A trace-driven or generated link's rate cannot be changed.",
    keys: &[AT, SET],
    with: &[],
    variants: None,
};

/// Read every `[[event]]` (link names are checked against `ck.links`); `traced`: links whose
/// rate is a trace or generated.
pub fn parse(ck: &mut Checker, root: Tab, traced: &[String]) -> Vec<EventSpec> {
    let tables = ck.array_of_tables(root, "event").unwrap_or_default();
    let mut out = Vec::new();
    for (path, t) in &tables {
        let t = Tab { path, t };
        ck.check_keys(t, &KEYS, None);
        let at: Option<SimTime> = ck.need(t, &AT, "\"10s\"");
        let set_path = join(path, "set");
        let Some(set) = (match t.t.get("set") {
            None => {
                ck.missing(t, "set", "{ \"topology.bottleneck.rate\" = \"20Mbps\" }");
                None
            }
            Some(_) => ck.table(t, "set", &set_path),
        }) else {
            continue;
        };
        if set.t.is_empty() {
            ck.err(
                &set_path,
                None,
                "no change: give at least one key path".into(),
            );
        }
        for (k, v) in set.t {
            let kp = join(&set_path, &format!("\"{k}\""));
            match change(ck, k, v, traced) {
                Ok((link, change)) => {
                    if let Some(at) = at {
                        out.push(EventSpec { at, link, change });
                    }
                }
                Err(m) => ck.err(&kp, Some(v), m),
            }
        }
    }
    out
}

/// One entry of `set`: `topology.LINK.PROPERTY = value`.
fn change(ck: &Checker, k: &str, v: &Value, traced: &[String]) -> Result<(String, Change), String> {
    let allowed = "expected \"topology.LINK.rate\", \"topology.LINK.delay\", \"topology.LINK.loss\" or \"topology.LINK.up\"";
    let parts: Vec<&str> = k.split('.').collect();
    let [top, link, prop] = parts[..] else {
        return Err(format!("'{k}': {allowed}"));
    };
    if top != "topology" {
        return Err(format!("'{k}': {allowed}"));
    }
    if let Some(links) = &ck.links {
        if !links.iter().any(|l| l == link) {
            return Err(crate::schema::check::unknown_name_message(
                "link", link, links,
            ));
        }
    }
    let c = match prop {
        "rate" => {
            if traced.iter().any(|l| l == link) {
                return Err(format!(
                    "link '{link}' is trace-driven or generated: its rate cannot be set"
                ));
            }
            Change::Rate(crate::schema::check::rate(v)?)
        }
        "delay" => Change::Delay(crate::schema::check::time(v)?),
        "loss" => {
            let p = match v {
                Value::Float(x) => *x,
                Value::Integer(i) => *i as f64,
                _ => return Err("expected a probability: a number at least 0 and below 1".into()),
            };
            if !(0.0..1.0).contains(&p) {
                return Err("expected a probability: a number at least 0 and below 1".into());
            }
            Change::Loss(p)
        }
        "up" => Change::Up(crate::schema::check::boolean(v)?),
        _ => return Err(format!("'{k}': unknown property '{prop}'; {allowed}")),
    };
    Ok((link.to_string(), c))
}

/// A downed link's discipline, Linux's `noop_qdisc`: it drops every packet offered.
struct Noop;

impl QueueDisc for Noop {
    fn enqueue(&mut self, _: PktId, _: &PktMeta) -> Verdict {
        Verdict::Drop
    }
    fn dequeue(&mut self, _: SimTime, _: &mut Vec<PktId>) -> Deq {
        Deq::Empty
    }
    fn backlog(&self) -> Backlog {
        Backlog::default()
    }
    fn peek_len(&self) -> Option<u32> {
        None
    }
}

/// A change the network makes at its time (built from an [`EventSpec`]).
#[derive(Debug)]
pub struct LinkChange {
    pub port: PortId,
    pub change: Change,
    /// A shorter delay's second step (it applies now).
    pub follow_up: bool,
}

/// The network's scheduled changes and what a downed link put aside.
#[derive(Debug, Default)]
pub struct Changes {
    pub list: Vec<LinkChange>,
    /// The discipline of each port that is down (restored when it comes up).
    saved: Vec<(PortId, Qdisc)>,
    /// The random stream of losses set by events on a link without `[[loss]]`.
    pub rng_seed: u64,
}

impl Network {
    /// Schedule `changes` (before the run): their ports stop being direct.
    pub fn add_changes<E: From<NetEv>>(
        &mut self,
        changes: Vec<(SimTime, LinkChange)>,
        seed: u64,
        q: &mut crate::engine::EventQueue<E>,
    ) {
        self.changes.rng_seed = seed;
        for (at, c) in changes {
            let i = self.changes.list.len() as u32;
            self.changing.push(c.port);
            if let Change::Up(_) = c.change {
                if let Some(r) = self.reverse_of(c.port) {
                    self.changing.push(r);
                }
            }
            self.changes.list.push(c);
            q.schedule(at, NetEv::LinkChange { change: i }.into());
        }
    }

    /// The discipline whose timer is due on `port`: the one a downed link put aside, else
    /// the port's own. Linux's `dev_deactivate` swaps in `noop_qdisc` but keeps the real
    /// qdisc with its timers (sch_pie's `adapt_timer`, sch_dualpi2's hrtimer are stopped
    /// only by `->destroy`), so PIE, FQ-PIE and DualPI2 go on updating through an outage.
    pub(crate) fn timer_qdisc(&mut self, port: PortId) -> &mut Qdisc {
        match self.changes.saved.iter().position(|(p, _)| *p == port) {
            Some(k) => &mut self.changes.saved[k].1,
            None => &mut self.port_mut(port).qdisc,
        }
    }

    /// The port of the other direction of `port`'s link.
    fn reverse_of(&self, port: PortId) -> Option<PortId> {
        let p = self.port(port);
        let (a, b) = (p.node, p.peer);
        (0..self.ports().len() as PortId).find(|&o| {
            let x = self.port(o);
            x.node == b && x.peer == a
        })
    }

    /// Change `i` is due.
    #[inline(never)]
    pub(crate) fn link_change<E: From<NetEv>, T: Tap>(&mut self, i: u32, cx: &mut NetCtx<E, T>) {
        let now = cx.q.now();
        let (port, change) = {
            let c = &self.changes.list[i as usize];
            (c.port, c.change.clone())
        };
        match change {
            Change::Rate(r) => self.port_mut(port).set_rate(r),
            Change::Delay(d) => {
                let old = self.port(port).delay;
                if d < old && !self.changes.list[i as usize].follow_up {
                    // Nothing sent before may be overtaken: the shorter delay applies to
                    // what starts once the last packet sent at the old one can no longer
                    // be, (old − new) later.
                    let j = self.changes.list.len() as u32;
                    self.changes.list.push(LinkChange {
                        port,
                        change: Change::Delay(d),
                        follow_up: true,
                    });
                    cx.q.schedule(now + (old - d), NetEv::LinkChange { change: j }.into());
                } else {
                    self.port_mut(port).delay = d;
                }
            }
            Change::Loss(p) => {
                let seed = self.changes.rng_seed;
                let pr = self.port_mut(port);
                match pr.loss.as_deref_mut() {
                    Some(l) => l.rate = p,
                    None => pr.set_loss(super::super::LinkLoss {
                        rate: p,
                        rng: Rng::new(seed, port as u64),
                        drop_nth: Vec::new(),
                        seen: Vec::new(),
                        every: 0,
                        data_seen: 0,
                        dropped: 0,
                    }),
                }
            }
            Change::Up(up) => {
                let mut ports = vec![port];
                ports.extend(self.reverse_of(port));
                for p in ports {
                    if up {
                        self.link_up(p, cx);
                    } else {
                        self.link_down(p, cx);
                    }
                }
            }
        }
    }

    fn link_down<E: From<NetEv>, T: Tap>(&mut self, port: PortId, cx: &mut NetCtx<E, T>) {
        if self.changes.saved.iter().any(|(p, _)| *p == port) {
            return;
        }
        let now = cx.q.now();
        let noop = Qdisc::Custom(Box::new(Noop));
        let mut q = std::mem::replace(&mut self.port_mut(port).qdisc, noop);
        // qdisc_reset: what the discipline holds is dropped, what a shaper, a delay line or
        // a trace-driven link holds back too.
        let mut drops = Vec::new();
        let before = q.bytes();
        q.reset(now, &mut drops);
        let pr = self.port_mut(port);
        pr.stats.advance(now, before);
        pr.stats.drops += drops.len() as u64;
        for id in drops {
            self.discard(id, cx);
        }
        self.changes.saved.push((port, q));
    }

    fn link_up<E: From<NetEv>, T: Tap>(&mut self, port: PortId, cx: &mut NetCtx<E, T>) {
        let Some(k) = self.changes.saved.iter().position(|(p, _)| *p == port) else {
            return;
        };
        let (_, q) = self.changes.saved.swap_remove(k);
        let pr = self.port_mut(port);
        let before = pr.qdisc.bytes();
        pr.stats.advance(cx.q.now(), before);
        pr.qdisc = q;
        let now = cx.q.now();
        if pr.qdisc.pkts() > 0 && pr.idle(now) {
            // What a discipline kept through its reset (a library user's own) goes on now:
            // the transmitter is woken as a wake-up it asked for would (`forward.rs` `arm`).
            pr.txdone_pending = true;
            pr.waiting = false;
            pr.wake_at = now;
            cx.q.schedule(now, NetEv::TxDone { port }.into());
        }
    }
}
