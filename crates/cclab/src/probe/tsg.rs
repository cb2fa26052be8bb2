//! Time-sequence traces like tcptrace's: for each traced flow, every data segment the
//! sender transmits (new or retransmitted, as a [seq, end) range) and every ACK it
//! receives (the cumulative ACK and the window's right edge), with its time.

use crate::engine::{secs, SimTime};
use crate::packet::{Packet, ACK};
use crate::results::{Series, TsgSample};

#[derive(Default)]
pub struct Tsg {
    /// For each connection: traced?
    traced: Vec<bool>,
}

impl Tsg {
    /// Trace the connections in `flows` out of `n`; an index out of range is an error.
    pub fn new(flows: &[usize], n: usize) -> Result<Tsg, String> {
        let mut traced = vec![false; n];
        for &f in flows {
            if f >= n {
                return Err(if n == 0 {
                    format!("output.tsg: no flow {f}: the scenario has no [[flow]] to trace")
                } else {
                    format!(
                        "output.tsg: no flow {f}; allowed: the [[flow]] indices 0 to {}",
                        n - 1
                    )
                });
            }
            traced[f] = true;
        }
        Ok(Tsg { traced })
    }

    #[inline]
    pub fn traces(&self, conn: u32) -> bool {
        self.traced.get(conn as usize).copied().unwrap_or(false)
    }

    /// The data sender of `conn` transmits `tx`.
    pub fn on_send(&self, conn: u32, now: SimTime, tx: &[Packet], out: &mut Series) {
        if !self.traces(conn) {
            return;
        }
        let t = secs(now);
        for p in tx.iter().filter(|p| p.payload > 0) {
            out.tsg.push(TsgSample {
                t,
                flow: conn,
                kind: p.retrans as u8,
                seq: p.seq,
                end: p.seq + p.payload as u64,
            });
        }
    }

    /// The data sender of `conn` receives `p`.
    pub fn on_receive(&self, conn: u32, now: SimTime, p: &Packet, out: &mut Series) {
        if self.traces(conn) && p.flags & ACK != 0 {
            out.tsg.push(TsgSample {
                t: secs(now),
                flow: conn,
                kind: 2,
                seq: p.ack,
                end: p.ack + p.rwnd,
            });
        }
    }
}
