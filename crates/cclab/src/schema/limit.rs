//! Queue limits and thresholds, in bytes or in packets: a value type the schema reads
//! (`check::limit`) and the queue disciplines apply.

/// A queue limit or threshold, in bytes or in packets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Limit {
    Bytes(u64),
    Packets(u64),
}

impl Limit {
    /// Does a queue holding `bytes` in `pkts` packets exceed this limit?
    #[inline]
    pub fn exceeded_by(&self, bytes: u64, pkts: u64) -> bool {
        match *self {
            Limit::Bytes(b) => bytes > b,
            Limit::Packets(p) => pkts > p,
        }
    }
    /// Would admitting a packet of `len` bytes to a queue of `bytes`/`pkts` overflow it?
    #[inline]
    pub fn overflows(&self, bytes: u64, pkts: u64, len: u64) -> bool {
        match *self {
            Limit::Bytes(b) => bytes + len > b,
            Limit::Packets(p) => pkts + 1 > p,
        }
    }
}
