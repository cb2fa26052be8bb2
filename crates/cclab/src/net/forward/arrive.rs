//! A packet's arrival (part of [`super`], the forwarding path): the wire delivers the head
//! packet to the next node, which forwards it or, at its destination host, passes it
//! through host ingress to leave the network; ingress policing; the network's events (`NetEv`) dispatched;
//! and TCP small queues' completions, handed to the host stack (`net/host.rs`).

use super::super::packet::PktId;
use super::super::{Network, NodeId, PortId};
use super::{NetCtx, NetEv, NetOut, Tap};

impl Network {
    /// Packet `id`, the head of `port`'s wire, reaches the next node. Returns `(host,
    /// packet)` when the node is the packet's destination: it leaves the network there.
    #[inline]
    pub fn arrive<E: From<NetEv>, T: Tap>(
        &mut self,
        port: PortId,
        id: PktId,
        cx: &mut NetCtx<E, T>,
    ) -> Option<(NodeId, PktId)> {
        let pr = &mut self.ports[port as usize];
        let node = pr.peer;
        let policed = pr.policed;
        let to_host = pr.to_host;
        match pr.wire.pop_front() {
            Some((t, next)) => cx.q.schedule(t, NetEv::Arrive { port, id: next }.into()),
            None => pr.on_wire = false,
        }
        let p = cx.pool.get(id);
        cx.tap.on_rx(cx.q.now(), node, p);
        let (dst, hash) = (p.dst, p.hash);
        if node == dst {
            if let Some(gro) = self.host.gro.as_deref_mut() {
                if gro.receive(node, id, port, cx.pool) {
                    let at = cx.q.now() + gro.flush;
                    cx.q.schedule(at, NetEv::GroFlush { node }.into());
                }
                return None;
            }
            if policed && !self.admit(port, id, cx) {
                return None;
            }
            return Some((node, id));
        }
        if policed && !self.admit(port, id, cx) {
            return None;
        }
        if to_host {
            // Hosts do not forward (Linux with `ip_forward = 0`).
            self.unroutable += 1;
            self.discard(id, cx);
            return None;
        }
        self.route(node, id, dst, hash, cx);
        None
    }

    /// Start loading port `port`'s first cache line, which an arrival over its link reads
    /// first. No bounds check: a prefetch of an address outside the ports does nothing.
    #[inline(always)]
    pub fn prefetch_port(&self, port: PortId) {
        crate::engine::prefetch(self.ports.as_ptr().wrapping_add(port as usize));
    }

    /// Handle one of the network's events; returns a packet that reached its destination.
    #[inline]
    pub fn on_event<E: From<NetEv>, T: Tap>(&mut self, ev: NetEv, cx: &mut NetCtx<E, T>) -> NetOut {
        match ev {
            NetEv::Arrive { port, id } => match self.arrive(port, id, cx) {
                Some((node, id)) => NetOut::Deliver(node, id),
                None if !self.host.ready.is_empty() => NetOut::Ready,
                None => NetOut::Nothing,
            },
            NetEv::TxDone { port } => {
                self.tx_done(port, cx);
                NetOut::Nothing
            }
            NetEv::TsqDone { port } => self.tsq_done(port, cx),
            NetEv::TsqWake { conn } => NetOut::TsqWake(conn),
            NetEv::GroFlush { node } => {
                if let Some(gro) = self.host.gro.as_deref_mut() {
                    gro.flush(node, &mut self.host.gro_out);
                }
                self.host_ingress(node, cx);
                NetOut::Ready
            }
            NetEv::AckDone { node, id } => NetOut::Deliver(node, id),
            NetEv::QdiscTimer { port } => {
                self.qdisc_timer(port, cx.q);
                NetOut::Nothing
            }
            NetEv::LinkChange { change } => {
                self.link_change(change, cx);
                NetOut::Nothing
            }
        }
    }

    /// The SACK-processing model (`net/host/sack_cpu.rs`) takes packet `id`, arrived at
    /// its destination host `node`, if it is a pure ACK: it is handed over when the host's
    /// CPU has processed it (`NetEv::AckDone`), or dropped at a full input queue. Reached
    /// through the ports' ingress flag (`policed`), which the model sets on the links into
    /// hosts: no test of its own on the way of a packet when it is off.
    fn sack_ingress<E: From<NetEv>, T: Tap>(
        &mut self,
        node: NodeId,
        id: PktId,
        cx: &mut NetCtx<E, T>,
    ) -> bool {
        let p = cx.pool.get(id);
        if p.dst != node || !crate::net::host::sack_cpu::SackCpu::applies(p) {
            return false;
        }
        let Some(cpu) = self.host.sack_cpu.as_deref_mut() else {
            return false;
        };
        match cpu.admit(node as usize, p, cx.q.now()) {
            Some(at) => cx.q.schedule(at, NetEv::AckDone { node, id }.into()),
            None => self.discard(id, cx),
        }
        true
    }

    /// What GRO released at host `node` passes the host's ingress and waits in `ready`.
    fn host_ingress<E: From<NetEv>, T: Tap>(&mut self, node: NodeId, cx: &mut NetCtx<E, T>) {
        let mut out = std::mem::take(&mut self.host.gro_out);
        for (id, port) in out.drain(..) {
            if !self.ports[port as usize].policed || self.admit(port, id, cx) {
                self.host.ready.push((node, id));
            }
        }
        self.host.gro_out = out;
    }

    /// The ingress stage of `port` decides on packet `id`, arriving over it: its policer (a
    /// packet it drops is discarded here), then at a host the SACK-processing model (which
    /// takes the ACKs and hands them over later). Whether the packet goes on now.
    #[inline(never)]
    fn admit<E: From<NetEv>, T: Tap>(
        &mut self,
        port: PortId,
        id: PktId,
        cx: &mut NetCtx<E, T>,
    ) -> bool {
        let now = cx.q.now();
        let pr = &mut self.ports[port as usize];
        let (node, to_host) = (pr.peer, pr.to_host);
        if let Some(ing) = pr.ingress.as_deref_mut() {
            if !ing.admits(cx.pool.get(id), now) {
                self.discard(id, cx);
                return false;
            }
        }
        !(to_host && self.sack_ingress(node, id, cx))
    }

    /// A sender waits on `port`'s NIC and the head of its TCP-small-queues list is due:
    /// release what the NIC finished by now, wake the sender whose packet it was, and
    /// come back at the next completion while a sender still waits.
    #[inline(never)]
    fn tsq_done<E: From<NetEv>, T: Tap>(&mut self, port: PortId, cx: &mut NetCtx<E, T>) -> NetOut {
        match self.host.tsq_due(port, cx.q) {
            Some(conn) => NetOut::TsqWake(conn),
            None => NetOut::Nothing,
        }
    }
}
