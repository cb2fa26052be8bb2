//! Drop-tail (Linux `pfifo` / `bfifo`): admit while the limit allows, else drop the arrival.

use super::{Fifo, PktMeta, Verdict};
use crate::net::packet::PktId;
use crate::scenario::Limit;

#[derive(Debug)]
pub struct DropTail {
    pub limit: Limit,
    pub fifo: Fifo,
}

impl DropTail {
    pub fn new(limit: Limit) -> DropTail {
        DropTail {
            limit,
            fifo: Fifo::default(),
        }
    }

    #[inline]
    pub fn enqueue(&mut self, id: PktId, m: &PktMeta) -> Verdict {
        if self
            .limit
            .overflows(self.fifo.bytes, self.fifo.len() as u64, m.len as u64)
        {
            return Verdict::Drop;
        }
        self.fifo.push(id, m.len);
        Verdict::Enqueue
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(len: u32) -> PktMeta {
        PktMeta {
            len,
            ecn: 0,
            dscp: 0,
            hash: 0,
            now: 0,
        }
    }

    #[test]
    fn packet_and_byte_limits() {
        let mut q = DropTail::new(Limit::Packets(2));
        assert_eq!(q.enqueue(1, &meta(1500)), Verdict::Enqueue);
        assert_eq!(q.enqueue(2, &meta(1500)), Verdict::Enqueue);
        assert_eq!(q.enqueue(3, &meta(64)), Verdict::Drop);
        let mut q = DropTail::new(Limit::Bytes(3000));
        assert_eq!(q.enqueue(1, &meta(1500)), Verdict::Enqueue);
        assert_eq!(q.enqueue(2, &meta(1500)), Verdict::Enqueue);
        assert_eq!(q.enqueue(3, &meta(1)), Verdict::Drop);
        assert_eq!(q.fifo.pop(), Some(1));
        assert_eq!(q.fifo.bytes, 1500);
    }
}
