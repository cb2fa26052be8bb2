//! A FIFO of packet ids with byte and packet accounting: the storage under drop-tail and
//! threshold-marking queues.

use super::Backlog;
use crate::packet::PktId;

/// Packets in arrival order, each with its IP length: a ring of a power-of-two capacity
/// that doubles when full.
///
/// Under a direct port (`Port::direct`, `net/forward.rs`) the FIFO only counts: the port
/// has put each admitted packet on its wire already and takes them out in order itself
/// (`pop_counted`), so no id is ever asked for and none is written. The ring is 24 bytes
/// (not a `VecDeque`'s 32), so the flag costs no room: a `Qdisc` stays 80 bytes.
#[derive(Debug, Default)]
pub struct Fifo {
    ring: Box<[(PktId, u32)]>,
    head: u32,
    /// Packets held (their ids in `ring` unless `counted`).
    pkts: u32,
    pub bytes: u64,
    counted: bool,
}

impl Fifo {
    #[inline]
    pub fn push(&mut self, id: PktId, len: u32) {
        if !self.counted {
            if self.pkts as usize == self.ring.len() {
                self.grow();
            }
            let mask = self.ring.len() - 1;
            self.ring[(self.head + self.pkts) as usize & mask] = (id, len);
        }
        self.pkts += 1;
        self.bytes += len as u64;
    }

    /// Twice the room (8 entries at first), the entries in order from index 0.
    #[cold]
    fn grow(&mut self) {
        let cap = (2 * self.ring.len()).max(8);
        let mut ring = vec![(0, 0); cap].into_boxed_slice();
        let mask = self.ring.len().wrapping_sub(1);
        for (i, e) in ring.iter_mut().enumerate().take(self.pkts as usize) {
            *e = self.ring[(self.head as usize + i) & mask];
        }
        self.ring = ring;
        self.head = 0;
    }

    #[inline]
    pub fn pop(&mut self) -> Option<PktId> {
        debug_assert!(!self.counted, "a counting FIFO holds no ids");
        let (id, len) = self.peek()?;
        self.head = (self.head + 1) & (self.ring.len() as u32 - 1);
        self.pkts -= 1;
        self.bytes -= len as u64;
        Some(id)
    }

    /// A counting FIFO's head, of IP length `len`, leaves.
    #[inline]
    pub fn pop_counted(&mut self, len: u32) {
        debug_assert!(self.counted && self.pkts > 0);
        self.pkts -= 1;
        self.bytes -= len as u64;
    }

    /// Does the FIFO only count (under a direct port)?
    #[inline]
    pub fn counted(&self) -> bool {
        self.counted
    }

    /// Count only (`true`) or keep the ids again; the FIFO must be empty.
    pub fn set_counted(&mut self, counted: bool) {
        assert_eq!(self.pkts, 0, "a FIFO changes mode only when empty");
        self.counted = counted;
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.pkts as usize
    }

    /// The head's id and length.
    #[inline]
    pub fn peek(&self) -> Option<(PktId, u32)> {
        debug_assert!(!self.counted, "a counting FIFO holds no ids");
        if self.pkts == 0 {
            return None;
        }
        Some(self.ring[self.head as usize])
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.pkts == 0
    }

    #[inline]
    pub fn backlog(&self) -> Backlog {
        Backlog {
            bytes: self.bytes,
            pkts: self.pkts as u64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ring_keeps_arrival_order_as_it_wraps_and_grows() {
        let mut f = Fifo::default();
        let mut reference = std::collections::VecDeque::new();
        let mut next = 0u32;
        // Pushes and pops in uneven runs: the ring wraps, then grows while wrapped.
        for round in 0..200u32 {
            for _ in 0..(round * 7 % 13) {
                f.push(next, 100 + next % 1400);
                reference.push_back(next);
                next += 1;
            }
            for _ in 0..(round * 5 % 11) {
                assert_eq!(f.pop(), reference.pop_front());
            }
            assert_eq!(f.len(), reference.len());
            let bytes: u64 = reference.iter().map(|&i| 100 + (i % 1400) as u64).sum();
            assert_eq!(f.bytes, bytes);
            assert_eq!(f.peek().map(|h| h.0), reference.front().copied());
        }
        while let Some(id) = f.pop() {
            assert_eq!(Some(id), reference.pop_front());
        }
        assert!(reference.is_empty() && f.is_empty() && f.bytes == 0);
    }

    #[test]
    fn a_counting_fifo_counts_without_ids() {
        let mut f = Fifo::default();
        f.set_counted(true);
        f.push(7, 1500);
        f.push(8, 52);
        assert_eq!((f.len(), f.bytes), (2, 1552));
        assert!(f.ring.is_empty(), "nothing stored");
        f.pop_counted(1500);
        f.pop_counted(52);
        assert!(f.is_empty() && f.bytes == 0);
        f.set_counted(false);
        f.push(9, 40);
        assert_eq!(f.pop(), Some(9));
    }
}
