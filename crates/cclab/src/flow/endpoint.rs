//! The two ends of an Ouroboros flow as the prototype's unicast IPCP runs them (0.18.0,
//! `src/ipcpd/unicast/fa.c`), sans-IO: handed a time and what happened, they say which
//! packets leave and when they want to be called again.
//!
//! **Sender** (`packet_handler`): the application's writes wait in the flow's ring buffer
//! (`SHM_RBUFF_SIZE`, 1024 packets; a writer blocks when it is full). The IPCP's thread
//! takes one packet at a time: counts it (`Sent (packets)`), calls
//! `update_context_at_sender(len)`, sleeps the wait it is given (at most 1 s), and writes
//! the packet to the layer below, which takes one frame time of the host's NIC — the
//! thread cannot hand the NIC frames faster than it sends them *[chosen: the prototype's
//! Ethernet IPCP writes to a raw socket whose kernel queue may hold a few frames; we model
//! none, so a flow's own source marks nothing unless other traffic shares its NIC]*.
//! Nothing is retransmitted, reordered or acknowledged.
//!
//! **Receiver** (`fa_post_packet`): counts the packet, calls
//! `update_context_at_receiver(len, ecn)`, and when asked sends a FLOW_UPDATE to the
//! sender's flow allocator: a 56-byte `fa_msg` outside the window, marked like any packet
//! on its way (the mark is ignored). The sender calls `update_context_at_sender_ece(ece)`.
//!
//! Sizes: an Ouroboros packet over Ethernet (DIX) carries the data-transfer PCI (4-byte
//! address, QoS cube, TTL, ECN, 8-byte endpoint id: 15 bytes, irm's defaults) and the
//! Ethernet IPCP's header (destination and source MAC, ethertype, endpoint id, length:
//! 18 bytes). Ports add 38 bytes of Ethernet framing to a packet's `size` (14 of them the
//! MAC header), so a flow packet's `size` is its SDU + 15 + 4: a 1000-byte SDU is 1057
//! bytes on the wire.

use super::{wnd_wait_ns, CongestionApi, FlowCa};
use crate::engine::SimTime;
use crate::net::NodeId;
use crate::packet::{Packet, PktKind, NOT_ECT};

/// The data-transfer PCI with irm's default sizes (`dt.c`): address 4, QoS 1, TTL 1, ECN
/// 1, endpoint id 8.
pub const DT_PCI: u32 = 15;
/// What the Ethernet DIX IPCP's header (`struct eth_frame`: 6 + 6 + 2 + 2 + 2) adds to the
/// 14-byte MAC header ports already count: the endpoint id and the length.
pub const ETH_DIX_EXTRA: u32 = 4;
/// Bytes a flow packet adds to its SDU in `Packet::size`.
pub const FLOW_HDR: u32 = DT_PCI + ETH_DIX_EXTRA;
/// The FLOW_UPDATE message (`struct fa_msg`, packed): 56 bytes.
pub const FA_MSG: u32 = 56;
/// The flow's ring buffer (`SHM_RBUFF_SIZE`).
pub const RBUFF: u32 = 1024;
/// `Packet::flags` of a FLOW_UPDATE (flow packets use no other flag).
pub const FLOW_UPDATE: u8 = 0x01;

/// Who the packets of a flow are: the flow's connection slot (`Packet::conn`), its hosts
/// and its ECMP hash.
#[derive(Clone, Copy, Debug)]
pub struct FlowAddr {
    pub conn: u32,
    pub src: NodeId,
    pub dst: NodeId,
    pub hash: u32,
}

/// What an end asks of the simulator after a call.
#[derive(Debug, Default)]
pub struct FlowIo {
    /// Packets to hand to the host's egress, in order.
    pub tx: Vec<Packet>,
    /// Call `on_timer` at this time (the sender's sleep, or its thread's next turn).
    pub wake: Option<SimTime>,
}

/// A flow's sending end.
#[derive(Clone, Debug)]
pub struct FlowSender {
    pub ca: FlowCa,
    pub addr: FlowAddr,
    /// SDU length of every packet (ocbr writes one size).
    pub len: u32,
    /// The writer never runs dry (`ocbr -f`): the ring is always full.
    pub flood: bool,
    /// Packets waiting in the ring.
    pub queued: u32,
    /// The host clock's offset (ns) from simulated time 0: MB-ECN aligns its windows to it.
    pub clock_ns: u64,
    /// The thread's time per packet: one frame time of the host's NIC, or the IPCP's own
    /// time per packet when that is longer (`[[ocbr]] packet_time`).
    pub frame_time: SimTime,
    /// The thread may take the next packet from this time on.
    free_at: SimTime,
    /// A packet already counted sleeps until `wake_at`.
    holding: bool,
    wake_at: Option<SimTime>,
    seq: u64,
    /// `Sent (packets)`, `Sent (bytes)` (counted before the wait, as the C does).
    pub p_snd: u64,
    pub b_snd: u64,
    /// FLOW_UPDATEs received.
    pub updates: u64,
    /// Total time slept in the congestion-avoidance wait.
    pub slept: SimTime,
}

impl FlowSender {
    pub fn new(
        ca: FlowCa,
        addr: FlowAddr,
        len: u32,
        flood: bool,
        clock_ns: u64,
        frame_time: SimTime,
    ) -> FlowSender {
        FlowSender {
            ca,
            addr,
            len,
            flood,
            queued: 0,
            clock_ns,
            frame_time,
            free_at: 0,
            holding: false,
            wake_at: None,
            seq: 0,
            p_snd: 0,
            b_snd: 0,
            updates: 0,
            slept: 0,
        }
    }

    /// The writer offers a packet: false if the ring is full (it blocks).
    pub fn write(&mut self, now: SimTime, io: &mut FlowIo) -> bool {
        if self.queued >= RBUFF {
            return false;
        }
        self.queued += 1;
        self.pump(now, io);
        true
    }

    /// The writer floods (`ocbr -f`): the ring is never empty from now on.
    pub fn flood(&mut self, now: SimTime, io: &mut FlowIo) {
        self.flood = true;
        self.pump(now, io);
    }

    /// The flooding writer stopped; what the ring holds still goes out.
    pub fn stop_flood(&mut self) {
        self.flood = false;
    }

    /// Is there room for a write (a blocked writer may go on)?
    pub fn has_room(&self) -> bool {
        self.flood || self.queued < RBUFF
    }

    /// A wake-up this end asked for.
    pub fn on_timer(&mut self, now: SimTime, io: &mut FlowIo) {
        if self.wake_at != Some(now) {
            return; // superseded
        }
        self.wake_at = None;
        if self.holding {
            self.holding = false;
            self.emit(now, io);
        }
        self.pump(now, io);
    }

    /// A FLOW_UPDATE reached this end.
    pub fn on_update(&mut self, ece: u16) {
        self.updates += 1;
        self.ca.update_context_at_sender_ece(ece);
    }

    /// Run the IPCP's thread as far as it goes now.
    fn pump(&mut self, now: SimTime, io: &mut FlowIo) {
        while !self.holding && (self.flood || self.queued > 0) {
            if now < self.free_at {
                self.arm(self.free_at, io);
                return;
            }
            if !self.flood {
                self.queued -= 1;
            }
            self.p_snd += 1;
            self.b_snd += self.len as u64;
            let now_ns = now / 1000 + self.clock_ns;
            let wait = self.ca.update_context_at_sender(now_ns, self.len as usize);
            let sleep = wnd_wait_ns(wait) * 1000;
            if sleep == 0 {
                self.emit(now, io);
            } else {
                self.holding = true;
                self.slept += sleep;
                self.arm(now + sleep, io);
                return;
            }
        }
    }

    fn arm(&mut self, at: SimTime, io: &mut FlowIo) {
        if self.wake_at != Some(at) {
            self.wake_at = Some(at);
            io.wake = Some(at);
        }
    }

    /// Write the packet to the layer below: the thread is busy for one frame time.
    fn emit(&mut self, now: SimTime, io: &mut FlowIo) {
        let mut p = flow_packet(self.addr, self.len + FLOW_HDR, now);
        p.payload = self.len;
        p.seq = self.seq;
        self.seq += 1;
        io.tx.push(p);
        self.free_at = now + self.frame_time;
    }
}

/// A flow packet from `a.src` to `a.dst`, `size` bytes as queues count them.
fn flow_packet(a: FlowAddr, size: u32, now: SimTime) -> Packet {
    let mut p = Packet::blank();
    p.kind = PktKind::Flow;
    p.src = a.src;
    p.dst = a.dst;
    p.conn = a.conn;
    p.from_client = true;
    p.size = size;
    p.ecn = NOT_ECT;
    p.cong = 0; // `dt_write_packet` starts every packet at ecn = 0
    p.hash = a.hash;
    p.born = now;
    p.segs = 1;
    p
}

/// A flow's receiving end.
#[derive(Clone, Debug)]
pub struct FlowReceiver {
    pub ca: FlowCa,
    /// Its address: FLOW_UPDATEs go from `dst` back to `src`.
    pub addr: FlowAddr,
    /// `Received (packets)`, `Received (bytes)` (SDU bytes).
    pub p_rcv: u64,
    pub b_rcv: u64,
    /// FLOW_UPDATEs sent.
    pub updates: u64,
    /// Highest sequence number + 1 seen: packets lost = this − received.
    pub next_seq: u64,
}

impl FlowReceiver {
    pub fn new(ca: FlowCa, addr: FlowAddr) -> FlowReceiver {
        FlowReceiver {
            ca,
            addr,
            p_rcv: 0,
            b_rcv: 0,
            updates: 0,
            next_seq: 0,
        }
    }

    /// Data packet `p` arrived: count it, and send a FLOW_UPDATE if the algorithm asks.
    pub fn on_packet(&mut self, now: SimTime, p: &Packet, io: &mut FlowIo) {
        self.p_rcv += 1;
        self.b_rcv += p.payload as u64;
        self.next_seq = self.next_seq.max(p.seq + 1);
        if let Some(ece) = self
            .ca
            .update_context_at_receiver(p.payload as usize, p.cong)
        {
            self.updates += 1;
            let back = FlowAddr {
                src: self.addr.dst,
                dst: self.addr.src,
                ..self.addr
            };
            let mut u = flow_packet(back, FA_MSG + FLOW_HDR, now);
            u.from_client = false;
            u.flags = FLOW_UPDATE;
            u.ack = ece as u64;
            io.tx.push(u);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{MS, NS};
    use crate::flow::mbecn::{MbEcn, Mode};

    fn addr() -> FlowAddr {
        FlowAddr {
            conn: 3,
            src: 1,
            dst: 2,
            hash: 7,
        }
    }

    /// A flooding sender in slow start: 66 packets of 1000 B go in the first window of
    /// 2^24 ns, one frame time (1057 B at 1 Gbit/s = 8456 ns) apart; the 66th makes
    /// 66,000 B > 65,536 and sleeps to the window's end, then leaves.
    #[test]
    fn flood_sender_paces_at_the_nic_and_waits_at_the_window() {
        let ca = FlowCa::MbEcn(MbEcn::new(Mode::Code0180, 0));
        let ft = 8456 * NS;
        let mut s = FlowSender::new(ca, addr(), 1000, true, 0, ft);
        let mut io = FlowIo::default();
        s.write(0, &mut io);
        let mut sent: Vec<Packet> = io.tx.drain(..).collect();
        let mut t = 0;
        while sent.len() < 66 {
            t = io
                .wake
                .take()
                .expect("a flooding sender always has a next turn");
            s.on_timer(t, &mut io);
            sent.append(&mut io.tx);
        }
        assert_eq!(sent.len(), 66);
        assert_eq!(sent[64].born, 64 * ft);
        // The 66th was counted at 65 · 8456 ns and slept until 2^24 ns.
        assert_eq!(t, 16_777_216 * NS);
        assert_eq!(sent[65].born, 16_777_216 * NS);
        assert_eq!(sent[65].size, 1000 + FLOW_HDR);
        assert_eq!((s.p_snd, s.b_snd), (66, 66_000));
        assert!(sent.iter().all(|p| p.kind == PktKind::Flow && p.cong == 0));
    }

    /// The receiver's FLOW_UPDATEs follow MB-1 and go back to the sender with the ECE.
    #[test]
    fn receiver_sends_flow_updates_as_mb1() {
        let ca = FlowCa::MbEcn(MbEcn::new(Mode::Code0180, 0));
        let mut r = FlowReceiver::new(ca, addr());
        let mut io = FlowIo::default();
        let mut ups = Vec::new();
        for (i, ecn) in [0u8, 3, 3, 3, 0, 0].into_iter().enumerate() {
            let mut p = flow_packet(addr(), 1000 + FLOW_HDR, 0);
            p.payload = 1000;
            p.seq = i as u64;
            p.cong = ecn;
            r.on_packet(i as SimTime * MS, &p, &mut io);
            for u in io.tx.drain(..) {
                assert_eq!((u.src, u.dst, u.flags, u.size), (2, 1, FLOW_UPDATE, 75));
                ups.push((i + 1, u.ack));
            }
        }
        assert_eq!(ups, vec![(2, 3), (4, 9), (6, 0)]);
        assert_eq!((r.p_rcv, r.b_rcv, r.next_seq), (6, 6000, 6));
    }

    /// A writer that outruns the flow fills the ring and then blocks.
    #[test]
    fn ring_buffer_blocks_the_writer_at_1024() {
        let ca = FlowCa::MbEcn(MbEcn::new(Mode::Code0180, 0));
        let mut s = FlowSender::new(ca, addr(), 1000, false, 0, 8456 * NS);
        let mut io = FlowIo::default();
        let mut n = 0;
        while s.write(0, &mut io) {
            n += 1;
        }
        // One packet left at once; the thread holds the ring's 1024 behind it.
        assert_eq!(n, 1025);
        assert!(!s.has_room());
    }
}
