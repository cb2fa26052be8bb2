//! The round robin over flow queues that `fq_codel` and `fq_pie` share: Linux's
//! `fq_codel_dequeue` and `fq_pie_qdisc_dequeue` run the same loop over two lists.
//!
//! - A packet is classified to flow `reciprocal_scale(hash, flows)`.
//! - A flow that becomes active joins the back of the new flows with `quantum` of deficit.
//! - The head of the new flows (else of the old flows) is served: out of deficit, it gets
//!   `quantum` more and moves to the back of the old flows; with nothing to send, a new flow
//!   moves to the old flows if there are any (so new flows cannot starve them), else — and
//!   an old flow always — it leaves the lists; otherwise its packet's length is charged.

use std::collections::VecDeque;

/// `reciprocal_scale(hash, n)`: the flow of `hash` among `n`.
#[inline]
pub fn classify(hash: u32, n: u32) -> usize {
    ((hash as u64 * n as u64) >> 32) as usize
}

/// What the round robin keeps in each flow.
pub trait DrrFlow {
    fn deficit(&mut self) -> &mut i64;
    /// On one of the lists.
    fn listed(&mut self) -> &mut bool;
}

/// The new and the old flows.
#[derive(Debug, Default)]
pub struct FlowLists {
    pub new: VecDeque<u32>,
    pub old: VecDeque<u32>,
}

impl FlowLists {
    /// A packet was queued in flow `i` (`f`): if idle, it joins the new flows.
    #[inline]
    pub fn activate(&mut self, f: &mut impl DrrFlow, i: usize, quantum: i64) {
        if !*f.listed() {
            *f.listed() = true;
            *f.deficit() = quantum;
            self.new.push_back(i as u32);
        }
    }

    /// The next packet: `take` dequeues from a flow (`None`: it has nothing to send now)
    /// and says the packet's length, which is charged to the flow's deficit.
    pub fn dequeue<F: DrrFlow, P>(
        &mut self,
        flows: &mut [F],
        quantum: i64,
        mut take: impl FnMut(&mut F) -> Option<(P, u32)>,
    ) -> Option<P> {
        loop {
            let from_new = !self.new.is_empty();
            let head = if from_new {
                &mut self.new
            } else {
                &mut self.old
            };
            let &fi = head.front()?;
            let f = &mut flows[fi as usize];
            if *f.deficit() <= 0 {
                *f.deficit() += quantum;
                head.pop_front();
                self.old.push_back(fi);
                continue;
            }
            match take(f) {
                Some((p, len)) => {
                    *f.deficit() -= len as i64;
                    return Some(p);
                }
                None => {
                    head.pop_front();
                    if from_new && !self.old.is_empty() {
                        self.old.push_back(fi);
                    } else {
                        *f.listed() = false;
                    }
                }
            }
        }
    }

    /// The head of the first listed flow with a packet (`head` reads a flow's), new flows
    /// first: what the round robin would look at next.
    pub fn peek<F>(&self, flows: &[F], head: impl Fn(&F) -> Option<u32>) -> Option<u32> {
        (self.new.iter().chain(self.old.iter())).find_map(|&i| head(&flows[i as usize]))
    }
}
