//! A switch port with several queues selected by DSCP, as the seed's switches (seed 000:
//! "traffic was segregated into two queues … DSCP 0x01 … into the DCTCP queue … all other
//! packets into the default drop-tail queue"), a scheduler between them and an optional
//! port-wide buffer shared by the classes, like a shallow-buffered commodity switch.
//!
//! Schedulers: strict priority (the class listed first goes first) or deficit round robin
//! (Shreedhar & Varghese 1995) with a per-class quantum in bytes (weight × MTU-sized
//! quantum), the usual WRR/DRR of data-centre switch ASICs.

use super::{Backlog, Deq, Offer, PktMeta, Qdisc, QdiscSpec, QueueDisc, QueueSpec, Verdict};
use crate::engine::SimTime;
use crate::packet::PktId;
use crate::schema::check::{join, show, type_name, Checker, Tab};
use crate::schema::Limit;
use crate::schema::{Key, Schema, Ty};
use toml::Value;

/// Most classes a port may have: one per DSCP value and a default.
pub const MAX_CLASSES: usize = 65;

/// Scheduler between the classes of a port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sched {
    /// The first class with a packet goes first.
    Strict,
    /// Deficit round robin.
    Drr,
}

/// One class of a `queue = "dscp"` port.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassSpec {
    /// DSCP values (0..=63) that select this class; empty = the default class.
    pub dscp: Vec<u8>,
    /// The class's own queue (drop-tail or ECN threshold).
    pub queue: QueueSpec,
    /// DRR weight (quantum = weight × 1514 bytes).
    pub weight: u32,
}

/// `queue = "dscp"`: several queues selected by DSCP, a scheduler between them and an
/// optional port-wide buffer (`limit`).
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    pub classes: Vec<ClassSpec>,
    pub sched: Sched,
    pub limit: Option<Limit>,
}

const SCHEDULER: Key = Key {
    name: "scheduler",
    ty: Ty::Choice("scheduler", &["drr", "strict"]),
    default: "`\"drr\"`",
    allowed: "",
    meaning: "between the classes: `\"strict\"`, the first class listed with a packet goes first; `\"drr\"`, deficit round robin",
};

const PORT_LIMIT: Key = Key {
    name: "limit",
    ty: Ty::QueueLimit,
    default: "none (no shared limit)",
    allowed: "",
    meaning: "the port buffer shared by all classes",
};

pub static KEYS: Schema = Schema {
    title: "DSCP classes",
    place: "a dscp queue",
    noun: "queue",
    about: "Several queues (classes) selected by the packet's DSCP, with a scheduler between them and an optional port buffer shared by all classes. Exactly one class has no `dscp`: it takes all traffic whose DSCP no other class lists.",
    keys: &[
        SCHEDULER,
        Key {
            name: "classes",
            ty: Ty::Tables(&CLASS),
            default: "required",
            allowed: "",
            meaning: "the port's queues; exactly one has no `dscp` and takes all other traffic",
        },
        PORT_LIMIT,
    ],
    with: &[],
    variants: None,
};

const DSCP: Key = Key {
    name: "dscp",
    ty: Ty::OneOrList(&Ty::Int(0, 63)),
    default: "none (the default class)",
    allowed: "each 0 to 63",
    meaning: "DSCP values that select this class (TOS 0x04 is DSCP 1)",
};

const WEIGHT: Key = Key {
    name: "weight",
    ty: Ty::Int(1, 1000),
    default: "`1`",
    allowed: "",
    meaning: "DRR weight; the quantum is weight × 1514 bytes",
};

/// One element of `classes`: its selector and weight, and the keys of its own queue
/// (`"droptail"` or `"ecn"`, not another `"dscp"`).
pub static CLASS: Schema = Schema {
    title: "Class tables",
    place: "a class table",
    noun: "class",
    about: "",
    keys: &[DSCP, WEIGHT],
    with: &[&super::QUEUE],
    variants: None,
};

pub fn parse(ck: &mut Checker, t: Tab, default_limit: Limit) -> Option<Spec> {
    let sched = match ck.get::<String>(t, &SCHEDULER).as_deref() {
        Some("strict") => Sched::Strict,
        _ => Sched::Drr,
    };
    let limit = ck.get(t, &PORT_LIMIT);
    let ckey = join(t.path, "classes");
    let mut classes = Vec::new();
    match t.t.get("classes") {
        None => ck.err(&ckey, None, "queue = \"dscp\" needs classes = [{ dscp = [1], queue = \"ecn\", limit = \"300KB\", k = \"75KB\" }, { queue = \"droptail\" }] (a class without dscp is the default)".into()),
        Some(Value::Array(a)) => {
            for (i, v) in a.iter().enumerate() {
                let path = format!("{ckey}.{i}");
                let Value::Table(ct) = v else {
                    ck.err(&path, Some(v), format!("expected a table {{ dscp = [1], queue = \"ecn\", … }}, found {}", type_name(v)));
                    continue;
                };
                let ctab = Tab { path: &path, t: ct };
                if let Some(Value::String(k)) = ct.get("queue") {
                    if k.eq_ignore_ascii_case("dscp") {
                        ck.err(&join(&path, "queue"), ct.get("queue"), "a class's queue is \"droptail\" or \"ecn\", not another \"dscp\"".into());
                        continue;
                    }
                }
                let kind = super::queue_kind(ctab);
                ck.check_keys(ctab, &CLASS, kind.as_deref());
                let dscp = match ct.get(DSCP.name) {
                    None => Vec::new(),
                    Some(v) => {
                        let one = |x: &Value| match x {
                            Value::Integer(n) if (0..=63).contains(n) => Ok(*n as u8),
                            _ => Err(format!("a DSCP value is an integer 0..=63 (TOS 0x04 is DSCP 1), found {}", show(x))),
                        };
                        let r: Result<Vec<u8>, String> = match v {
                            Value::Array(xs) => xs.iter().map(one).collect(),
                            x => one(x).map(|d| vec![d]),
                        };
                        r.unwrap_or_else(|m| {
                            ck.err(&join(&path, DSCP.name), Some(v), m);
                            Vec::new()
                        })
                    }
                };
                let weight = ck.get(ctab, &WEIGHT).unwrap_or(1);
                let queue = super::parse(ck, ctab, default_limit);
                classes.push(ClassSpec { dscp, queue, weight });
            }
            if classes.len() > MAX_CLASSES {
                ck.err(&ckey, t.t.get("classes"), format!("at most {MAX_CLASSES} classes (one per DSCP value and the default); found {}", classes.len()));
                classes.truncate(MAX_CLASSES);
            }
            let defaults = classes.iter().filter(|c| c.dscp.is_empty()).count();
            if !classes.is_empty() && defaults != 1 {
                ck.err(&ckey, t.t.get("classes"), format!("exactly one class must have no dscp (the default class for all other traffic); found {defaults}"));
            }
        }
        Some(other) => ck.err(&ckey, Some(other), format!("expected an array of class tables, found {}", type_name(other))),
    }
    if classes.is_empty() {
        return None;
    }
    Some(Spec {
        classes,
        sched,
        limit,
    })
}

impl QdiscSpec for Spec {
    type Q = Box<Classful>;
    fn build(&self) -> Box<Classful> {
        let cl = self
            .classes
            .iter()
            .map(|c| Class {
                dscp: c.dscp.clone(),
                q: c.queue.build(),
                quantum: c.weight.max(1) * 1514,
                deficit: 0,
            })
            .collect();
        Box::new(Classful::new(cl, self.sched, self.limit))
    }
    fn limit(&self) -> Limit {
        self.limit.unwrap_or_else(|| {
            self.classes
                .first()
                .map_or(Limit::Packets(0), |c| c.queue.limit())
        })
    }
}

impl QueueSpec {
    /// Classes selected by DSCP, a scheduler, an optional port buffer.
    pub fn dscp(classes: Vec<ClassSpec>, sched: Sched, limit: Option<Limit>) -> QueueSpec {
        QueueSpec::Classes(Spec {
            classes,
            sched,
            limit,
        })
    }
}

#[derive(Debug)]
pub struct Class {
    /// DSCP values this class takes; empty = the default class.
    pub dscp: Vec<u8>,
    pub q: Qdisc,
    pub quantum: u32,
    pub deficit: i64,
}

#[derive(Debug)]
pub struct Classful {
    pub classes: Vec<Class>,
    pub default: usize,
    pub sched: Sched,
    /// Buffer shared by all classes of the port.
    pub limit: Option<Limit>,
    /// Map DSCP → class (64 entries, filled at build time: no search per packet).
    pub by_dscp: [u8; 64],
    /// DRR: the class whose turn it is, and whether its quantum is still to be added.
    pub next: usize,
    fresh: bool,
    /// The sum of the classes' backlogs.
    held: Backlog,
    /// When each class's timer is next due (`QueueDisc::start`); empty when no class keeps
    /// one.
    due: Vec<Option<SimTime>>,
}

impl Classful {
    pub fn new(classes: Vec<Class>, sched: Sched, limit: Option<Limit>) -> Classful {
        assert!(
            (1..=MAX_CLASSES).contains(&classes.len()),
            "a port has 1 to {MAX_CLASSES} classes (the scenario parser refuses others)"
        );
        let default = classes
            .iter()
            .position(|c| c.dscp.is_empty())
            .unwrap_or(classes.len() - 1);
        let mut by_dscp = [default as u8; 64];
        for (i, c) in classes.iter().enumerate() {
            for &d in &c.dscp {
                by_dscp[(d & 63) as usize] = i as u8;
            }
        }
        Classful {
            classes,
            default,
            sched,
            limit,
            by_dscp,
            next: 0,
            fresh: true,
            held: Backlog::default(),
            due: Vec::new(),
        }
    }

    /// The earliest of the classes' timers.
    fn next_due(&self) -> Option<SimTime> {
        self.due.iter().flatten().min().copied()
    }

    #[inline]
    pub fn class_of(&self, dscp: u8) -> usize {
        self.by_dscp[(dscp & 63) as usize] as usize
    }

    /// Dequeue from class `c`, keeping the port's sum of backlogs in step (the class may
    /// also drop packets on the way).
    fn take(&mut self, c: usize, now: SimTime, drops: &mut Vec<PktId>) -> Deq {
        let q = &mut self.classes[c].q;
        let before = q.backlog();
        let d = q.dequeue(now, drops);
        let after = q.backlog();
        self.held.bytes -= before.bytes - after.bytes;
        self.held.pkts -= before.pkts - after.pkts;
        d
    }

    fn strict(&mut self, now: SimTime, drops: &mut Vec<PktId>) -> Deq {
        let mut wake: Option<SimTime> = None;
        for c in 0..self.classes.len() {
            if self.classes[c].q.pkts() == 0 {
                continue;
            }
            match self.take(c, now, drops) {
                Deq::Packet(id, m) => return Deq::Packet(id, m),
                Deq::NotBefore(t) => wake = Some(wake.map_or(t, |w| w.min(t))),
                Deq::Empty => {}
            }
        }
        wake.map_or(Deq::Empty, Deq::NotBefore)
    }

    /// Deficit round robin as Linux `sch_drr.c`: the class at the head of the round sends
    /// while its deficit covers its head packet, else it gains a quantum and the turn
    /// passes on; an empty class loses its deficit. A class whose queue will not give up
    /// its head now (a shaper inside it answers "not before t", an AQM drops what it held)
    /// is passed over for the rest of this call; when every class is empty or passed over,
    /// the answer is the earliest time one of them named, or empty.
    fn drr(&mut self, now: SimTime, drops: &mut Vec<PktId>) -> Deq {
        let n = self.classes.len();
        // Consecutive classes with nothing to send now; a full round of them ends the
        // search.
        let mut headless = 0;
        let mut refused: u128 = 0;
        let mut wake: Option<SimTime> = None;
        while headless < n {
            let cur = self.next;
            let passed = refused & (1 << cur) != 0;
            let c = &mut self.classes[cur];
            let head = if passed { None } else { c.q.peek_len() };
            let Some(head_len) = head else {
                if !passed {
                    c.deficit = 0;
                }
                self.next = (cur + 1) % n;
                self.fresh = true;
                headless += 1;
                continue;
            };
            headless = 0;
            if self.fresh {
                c.deficit += c.quantum as i64;
                self.fresh = false;
            }
            if c.deficit >= head_len as i64 {
                let (dropped, held) = (drops.len(), c.q.bytes());
                match self.take(cur, now, drops) {
                    Deq::Packet(id, m) => {
                        // Charge the packet sent: exactly what left the class, unless the
                        // class also dropped packets on the way (then its head's length).
                        let c = &mut self.classes[cur];
                        let sent = if drops.len() == dropped {
                            (held - c.q.bytes()) as i64
                        } else {
                            head_len as i64
                        };
                        c.deficit -= sent;
                        return Deq::Packet(id, m);
                    }
                    Deq::NotBefore(t) => {
                        wake = Some(wake.map_or(t, |w| w.min(t)));
                        refused |= 1 << cur;
                    }
                    Deq::Empty => refused |= 1 << cur,
                }
            }
            self.next = (cur + 1) % n;
            self.fresh = true;
        }
        wake.map_or(Deq::Empty, Deq::NotBefore)
    }
}

// Not inlined: a class's own qdisc dispatches back through `Qdisc`, and stopping the
// recursion here lets the single-queue disciplines inline into the port.
impl QueueDisc for Classful {
    #[inline(never)]
    fn enqueue(&mut self, id: PktId, m: &PktMeta) -> Verdict {
        if let Some(l) = self.limit {
            if l.overflows(self.held.bytes, self.held.pkts, m.len as u64) {
                return Verdict::Drop;
            }
        }
        let c = self.class_of(m.dscp);
        let v = self.classes[c].q.enqueue(id, m);
        if let Verdict::Queue(_) = v {
            self.held.bytes += m.len as u64;
            self.held.pkts += 1;
        }
        v
    }

    /// The port buffer and every class are empty: the packet's class decides.
    #[inline(never)]
    fn offer_idle(&mut self, id: PktId, m: &PktMeta) -> Offer {
        if let Some(l) = self.limit {
            if l.overflows(0, 0, m.len as u64) {
                return Offer::Drop;
            }
        }
        let c = self.class_of(m.dscp);
        let o = self.classes[c].q.offer_idle(id, m);
        if let Offer::Queued(_) = o {
            self.held.bytes += m.len as u64;
            self.held.pkts += 1;
        }
        o
    }

    /// Dequeue per the scheduler.
    #[inline(never)]
    fn dequeue(&mut self, now: SimTime, drops: &mut Vec<PktId>) -> Deq {
        if self.held.pkts == 0 {
            return Deq::Empty;
        }
        match self.sched {
            Sched::Strict => self.strict(now, drops),
            Sched::Drr => self.drr(now, drops),
        }
    }

    /// `prio_reset` / `drr_reset`: every class's discipline reset. What the scheduler
    /// gives now is taken first, in its order; then each class drops what it holds back.
    fn reset(&mut self, now: SimTime, drops: &mut Vec<PktId>) {
        while let Deq::Packet(id, _) = self.dequeue(now, drops) {
            drops.push(id);
        }
        for c in &mut self.classes {
            c.q.reset(now, drops);
        }
        self.held = Backlog::default();
    }

    #[inline]
    fn backlog(&self) -> Backlog {
        self.held
    }

    /// Each class's discipline gets a stream of its own; the port's timer is the earliest
    /// of theirs.
    fn start(&mut self, rng: &mut crate::engine::Rng) -> Option<SimTime> {
        let due: Vec<_> = self.classes.iter_mut().map(|c| c.q.start(rng)).collect();
        if due.iter().any(Option::is_some) {
            self.due = due;
        }
        self.next_due()
    }

    /// The classes whose timers are due run theirs.
    fn on_timer(&mut self, now: SimTime) -> Option<SimTime> {
        for (c, due) in self.classes.iter_mut().zip(self.due.iter_mut()) {
            if due.is_some_and(|t| t <= now) {
                *due = c.q.on_timer(now);
            }
        }
        self.next_due()
    }

    #[inline(never)]
    fn peek_len(&self) -> Option<u32> {
        match self.sched {
            Sched::Strict => self.classes.iter().find_map(|c| c.q.peek_len()),
            // The class DRR serves next depends on deficits; report the next non-empty
            // class's head, which is what a DRR parent needs to know that data waits.
            Sched::Drr => (0..self.classes.len())
                .map(|i| (self.next + i) % self.classes.len())
                .find_map(|i| self.classes[i].q.peek_len()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::droptail::DropTail;

    fn deq(q: &mut Classful) -> Option<PktId> {
        match q.dequeue(0, &mut Vec::new()) {
            Deq::Packet(id, _) => Some(id),
            _ => None,
        }
    }

    fn meta(dscp: u8, len: u32) -> PktMeta {
        PktMeta {
            len,
            ecn: 0,
            dscp,
            hash: 0,
            segs: 1,
            now: 0,
            edt: 0,
            ..PktMeta::default()
        }
    }

    fn two_classes(sched: Sched, weights: (u32, u32), limit: Option<Limit>) -> Classful {
        let c = |dscp: Vec<u8>, w| Class {
            dscp,
            q: Qdisc::DropTail(DropTail::new(Limit::Packets(100))),
            quantum: w * 1514,
            deficit: 0,
        };
        Classful::new(
            vec![c(vec![1], weights.0), c(vec![], weights.1)],
            sched,
            limit,
        )
    }

    #[test]
    fn dscp_selects_the_class_and_strict_priority_serves_the_first() {
        let mut q = two_classes(Sched::Strict, (1, 1), None);
        assert_eq!(q.class_of(1), 0);
        assert_eq!(q.class_of(0), 1);
        assert_eq!(q.class_of(46), 1);
        for id in 0..3 {
            q.enqueue(id, &meta(0, 1500));
        }
        for id in 10..13 {
            q.enqueue(id, &meta(1, 1500));
        }
        let order: Vec<_> = std::iter::from_fn(|| deq(&mut q)).collect();
        assert_eq!(order, vec![10, 11, 12, 0, 1, 2]);
    }

    /// A link going down resets every class (`prio_reset`): what the scheduler gives now
    /// is dropped in its order (the default class's 10, 11: the first class has nothing
    /// due), then what a class holds back (the first class's netem, its 0 and 1 due at
    /// 10 ms); the port's backlog is then empty.
    #[test]
    fn reset_drops_what_each_class_holds_back() {
        let mut q = two_classes(Sched::Strict, (1, 1), None);
        q.classes[0].q = QueueSpec::delay(10 * crate::engine::MS, 100).build();
        for (id, dscp) in [(0, 1), (1, 1), (10, 0), (11, 0)] {
            q.enqueue(id, &meta(dscp, 1500));
        }
        let mut drops = Vec::new();
        q.reset(0, &mut drops);
        assert_eq!(drops, [10, 11, 0, 1]);
        assert_eq!(q.backlog(), Backlog::default());
        assert_eq!(q.dequeue(0, &mut Vec::new()), Deq::Empty);
    }

    #[test]
    fn drr_shares_bytes_by_weight() {
        let mut q = two_classes(Sched::Drr, (3, 1), None);
        for i in 0..40 {
            q.enqueue(i, &meta(1, 1500));
            q.enqueue(100 + i, &meta(0, 1500));
        }
        let first: Vec<_> = (0..40).map(|_| deq(&mut q).unwrap()).collect();
        let a = first.iter().filter(|&&id| id < 100).count();
        assert_eq!(
            a, 30,
            "weights 3:1 → 30 of the first 40 packets from class 0"
        );
    }

    #[test]
    fn the_port_buffer_is_shared() {
        let mut q = two_classes(Sched::Drr, (1, 1), Some(Limit::Bytes(4500)));
        assert_eq!(q.enqueue(0, &meta(1, 1500)), Verdict::ENQUEUE);
        assert_eq!(q.enqueue(1, &meta(0, 1500)), Verdict::ENQUEUE);
        assert_eq!(q.enqueue(2, &meta(0, 1500)), Verdict::ENQUEUE);
        assert_eq!(q.enqueue(3, &meta(1, 1500)), Verdict::Drop);
        assert_eq!(
            q.backlog(),
            Backlog {
                bytes: 4500,
                pkts: 3
            }
        );
    }
}
