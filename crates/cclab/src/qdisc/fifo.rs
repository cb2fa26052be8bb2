//! A FIFO of packet ids with byte and packet accounting: the storage under drop-tail and
//! threshold-marking queues.

use super::Backlog;
use crate::net::packet::PktId;
use std::collections::VecDeque;

/// Packets in arrival order, each with its IP length.
#[derive(Debug, Default)]
pub struct Fifo {
    q: VecDeque<(PktId, u32)>,
    pub bytes: u64,
}

impl Fifo {
    #[inline]
    pub fn push(&mut self, id: PktId, len: u32) {
        self.q.push_back((id, len));
        self.bytes += len as u64;
    }

    #[inline]
    pub fn pop(&mut self) -> Option<PktId> {
        let (id, len) = self.q.pop_front()?;
        self.bytes -= len as u64;
        Some(id)
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.q.len()
    }

    /// The head's id and length.
    #[inline]
    pub fn peek(&self) -> Option<(PktId, u32)> {
        self.q.front().copied()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }

    #[inline]
    pub fn backlog(&self) -> Backlog {
        Backlog {
            bytes: self.bytes,
            pkts: self.q.len() as u64,
        }
    }
}
