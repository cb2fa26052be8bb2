//! The Ouroboros layer's router marking (seed 002): every IPCP that writes a flow packet
//! to an N-1 flow, the source's own included, rewrites the packet's one-octet ECN field
//! from the packets already queued for that N-1 flow (`update_ecn_in_router` of the
//! layer's policy, the prototype's `calc_ecn`: see [`super`] and [`super::mbecn`]).
//!
//! In the simulator that is a stage in front of a port's queue discipline, wrapping it
//! (as ns-3's `PacketFilter`s sit in front of a queue disc): [`RouterMark`] reads the
//! wrapped discipline's backlog when a flow packet arrives, lets the discipline decide,
//! and returns the rewritten octet with the discipline's own mark in one
//! [`Mark::Rewrite`] (or `RewriteMarked`, `RewriteCe`). Other packets pass through untouched. Only a network that carries
//! flows wraps its ports (`WorldBuilder::set_flow_marking`): a TCP network pays nothing.

use super::FlowCaKind;
use crate::engine::SimTime;
use crate::packet::PktId;
use crate::qdisc::{Backlog, Deq, Fifo, Mark, Offer, PktMeta, Qdisc, QueueDisc, Verdict};

/// A port's discipline with the layer's router marking in front.
pub struct RouterMark {
    inner: Qdisc,
    ca: FlowCaKind,
    /// Packets of the queue the kernel holds below the IPCP's ring, out of the marker's
    /// sight (`[[ocbr]] kernel_queue`): the marker sees the queue less these.
    hidden: u64,
}

impl RouterMark {
    pub fn new(inner: Qdisc, ca: FlowCaKind, hidden: u64) -> RouterMark {
        RouterMark { inner, ca, hidden }
    }

    /// The octet the packet leaves the IPCP with, and the packet as the discipline sees it.
    #[inline]
    fn rewrite(&self, m: &PktMeta) -> (u8, PktMeta) {
        let queued = self.inner.pkts().saturating_sub(self.hidden);
        let set = self.ca.update_ecn_in_router(m.cong, queued as usize);
        (set, PktMeta { cong: set, ..*m })
    }
}

/// The rewritten octet `set` with the discipline's own `mark`.
fn with(set: u8, mark: Mark) -> Mark {
    match mark {
        Mark::None | Mark::Cong(0) => Mark::Rewrite(set),
        Mark::Cong(or) => Mark::RewriteMarked(set | or),
        Mark::Ce => Mark::RewriteCe(set),
        Mark::Rewrite(_) | Mark::RewriteMarked(_) | Mark::RewriteCe(_) => {
            unreachable!("router marking is not nested")
        }
    }
}

impl QueueDisc for RouterMark {
    fn enqueue(&mut self, id: PktId, m: &PktMeta) -> Verdict {
        if !m.flow {
            return self.inner.enqueue(id, m);
        }
        let (set, m) = self.rewrite(m);
        match self.inner.enqueue(id, &m) {
            Verdict::Queue(mark) => Verdict::Queue(with(set, mark)),
            other => other,
        }
    }

    fn offer_idle(&mut self, id: PktId, m: &PktMeta) -> Offer {
        if !m.flow {
            return self.inner.offer_idle(id, m);
        }
        let (set, m) = self.rewrite(m);
        match self.inner.offer_idle(id, &m) {
            Offer::Send(mark) => Offer::Send(with(set, mark)),
            Offer::Queued(mark) => Offer::Queued(with(set, mark)),
            other => other,
        }
    }

    fn dequeue(&mut self, now: SimTime, drops: &mut Vec<PktId>) -> Deq {
        self.inner.dequeue(now, drops)
    }

    fn reset(&mut self, now: SimTime, drops: &mut Vec<PktId>) {
        self.inner.reset(now, drops)
    }

    fn backlog(&self) -> Backlog {
        self.inner.backlog()
    }

    fn peek_len(&self) -> Option<u32> {
        self.inner.peek_len()
    }

    fn orphans(&self) -> bool {
        self.inner.orphans()
    }

    fn arrival_fifo(&mut self) -> Option<&mut Fifo> {
        self.inner.arrival_fifo()
    }

    fn room(&self, len: u32) -> u32 {
        self.inner.room(len)
    }

    fn honours_edt(&self) -> bool {
        self.inner.honours_edt()
    }

    fn start(&mut self, rng: &mut crate::engine::Rng) -> Option<SimTime> {
        self.inner.start(rng)
    }

    fn on_timer(&mut self, now: SimTime) -> Option<SimTime> {
        self.inner.on_timer(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flow::mbecn::Mode;
    use crate::qdisc::QueueSpec;
    use crate::schema::Limit;

    fn flow(cong: u8) -> PktMeta {
        PktMeta {
            len: 1000,
            segs: 1,
            flow: true,
            cong,
            ..PktMeta::default()
        }
    }

    /// The wrapped discipline answers every question the port asks as it would alone.
    #[test]
    fn the_port_questions_reach_the_wrapped_discipline() {
        let ca = FlowCaKind::MbEcn(Mode::Code0180);
        let mut tail = RouterMark::new(QueueSpec::droptail(Limit::Packets(10)).build(), ca, 0);
        let mut fq = RouterMark::new(
            QueueSpec::fq(crate::qdisc::fq::Spec::default()).build(),
            ca,
            0,
        );
        assert!(tail.arrival_fifo().is_some() && fq.arrival_fifo().is_none());
        assert_eq!((tail.room(1500), fq.room(1500)), (10, u32::MAX));
        assert!(fq.honours_edt() && !tail.honours_edt());
        assert!(!tail.orphans());
    }

    /// Each flow packet gets the octet MB-ECN's router computes from the packets queued
    /// before it (less the hidden ones), ORed with what the queue marks; other packets
    /// pass untouched.
    #[test]
    fn flow_packets_get_the_routers_octet_others_pass() {
        let ca = FlowCaKind::MbEcn(Mode::Code0180);
        for hidden in [0u64, 3] {
            let mut q =
                RouterMark::new(QueueSpec::droptail(Limit::Packets(100)).build(), ca, hidden);
            for n in 0..40u64 {
                let want = ca.update_ecn_in_router(0, n.saturating_sub(hidden) as usize);
                match q.enqueue(n as PktId, &flow(0)) {
                    Verdict::Queue(Mark::Rewrite(set)) => {
                        assert_eq!(set, want, "{n} queued, {hidden} hidden")
                    }
                    v => panic!("{v:?}"),
                }
            }
            // A TCP packet: the discipline's own verdict, no rewrite.
            let tcp = PktMeta {
                len: 1000,
                segs: 1,
                ..PktMeta::default()
            };
            assert_eq!(q.enqueue(99, &tcp), Verdict::ENQUEUE);
        }
        // With 30 packets queued the octet is not 0: the test reaches the marking.
        assert_ne!(ca.update_ecn_in_router(0, 30), 0);
    }

    /// What the discipline marks itself comes back with the rewritten octet: an ECN
    /// threshold queue above its threshold CE-marks an ECT flow packet (the prototype's
    /// flow packets are not ECT; the combination is kept exact all the same).
    #[test]
    fn the_disciplines_own_mark_is_kept() {
        let ca = FlowCaKind::MbEcn(Mode::Code0180);
        let ecn = QueueSpec::ecn(Limit::Packets(100), Limit::Packets(1)).build();
        let mut q = RouterMark::new(ecn, ca, 0);
        let ect = PktMeta {
            ecn: crate::packet::ECT0,
            ..flow(0)
        };
        let mut marks = Vec::new();
        for n in 0..40 {
            if let Verdict::Queue(m) = q.enqueue(n, &ect) {
                marks.push(m);
            }
        }
        assert_eq!(marks[0], Mark::Rewrite(0));
        assert_eq!(marks[39], Mark::RewriteCe(ca.update_ecn_in_router(0, 39)));
        assert_eq!(with(5, Mark::Cong(8)), Mark::RewriteMarked(13));
        assert_eq!(with(5, Mark::Cong(0)), Mark::Rewrite(5));
    }
}
