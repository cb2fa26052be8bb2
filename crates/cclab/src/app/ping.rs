//! A ping probe: an ICMP echo request every `interval` from one host to another through
//! the same queues as the traffic (as `ping -i`). The destination host answers it
//! (`net::host`, the kernel's echo reply); the reply's round-trip time is recorded here.

use super::{App, AppCx, AppId, ResultCx};
use crate::engine::SimTime;
use crate::net::packet::{Packet, PktKind, ECT0, NOT_ECT};
use crate::net::{flow_hash, NodeId};
use crate::results::{PingResult, RunResult};

const SEND: u32 = 0;

pub struct Ping {
    /// This app's index: echo packets carry it in `conn`, so replies find their way back.
    pub id: AppId,
    pub from: NodeId,
    pub to: NodeId,
    pub from_name: String,
    pub to_name: String,
    pub start: SimTime,
    pub interval: SimTime,
    /// IP packet size in bytes.
    pub size: u32,
    pub ect: bool,
    pub dscp: u8,
    pub sent: u64,
    /// Round-trip times of the replies received, in order.
    pub rtts: Vec<SimTime>,
}

impl App for Ping {
    fn start(&mut self, cx: &mut AppCx) {
        cx.wake(self.start, SEND);
    }

    fn on_event(&mut self, _tag: u32, cx: &mut AppCx) {
        let mut p = Packet::blank();
        p.kind = PktKind::Ping;
        p.src = self.from;
        p.dst = self.to;
        p.conn = self.id;
        p.size = self.size;
        p.ecn = if self.ect { ECT0 } else { NOT_ECT };
        p.dscp = self.dscp;
        p.hash = flow_hash(self.from, self.to, self.id as u16, 0, 1);
        p.born = cx.now;
        p.seq = self.sent;
        self.sent += 1;
        cx.wake(cx.now + self.interval, SEND);
        cx.send(self.from, p);
    }

    /// An echo reply.
    fn on_message(&mut self, p: &Packet, cx: &mut AppCx) {
        self.rtts.push(cx.now - p.born);
    }

    fn results(&self, r: &mut RunResult, _cx: &ResultCx) {
        let s = super::summarize(&self.rtts);
        r.pings.push(PingResult {
            from: self.from_name.clone(),
            to: self.to_name.clone(),
            sent: self.sent,
            received: self.rtts.len() as u64,
            rtt_mean_s: s.map(|s| s[0]),
            rtt_median_s: s.map(|s| s[1]),
            rtt_p99_s: s.map(|s| s[2]),
            rtt_min_s: s.map(|s| s[3]),
            rtt_max_s: s.map(|s| s[4]),
            rtt_stddev_s: s.map(|s| s[5]),
        });
    }
}
