//! Hosts: the egress stage between a host's transport endpoints and its NIC, and the host
//! stack's own replies.
//!
//! **Egress stage.** Everything a host's endpoints and apps send enters here
//! ([`Network::egress`]): the route picks the NIC (a host with one link has one), the
//! packet enters that NIC port's qdisc — the *host qdisc* — and the port's transmitter is
//! the NIC, which puts frames on the wire at line rate with the link's framing. The
//! default host qdisc is what Linux uses when nothing else is configured: a FIFO
//! (`pfifo_fast` with one band in use), drop-tail at the port's limit — 1000 packets, like
//! `txqueuelen`, on a graph link; the built-in topologies keep their own defaults
//! (`access_queue` / `other_queue`: 10,000 packets) — which sends packets in order and
//! ignores their earliest departure times, as `pfifo_fast` ignores `skb->tstamp`.
//!
//! What plugs in here (seeds 001 and 004): a host qdisc that honours departure times
//! (`fq`, answering `NotBefore`), TCP's own pacing timestamps (`Packet::edt`),
//! segmentation-offload bursts and the NIC's inter-packet gap.
//!
//! **Host stack.** An ICMP echo request is answered by the destination host itself
//! (Linux `icmp_echo`), not by an app: [`Network::echo_reply`].

use super::forward::{NetCtx, NetEv, Tap};
use super::packet::{PktId, PktKind, ECT0, NOT_ECT};
use super::{Network, NodeId};

impl Network {
    /// The host egress stage: packet `id`, sent by an endpoint or app of `host`, enters the
    /// host qdisc of the NIC its route leaves by.
    #[inline]
    pub fn egress<E: From<NetEv>, T: Tap>(
        &mut self,
        host: NodeId,
        id: PktId,
        cx: &mut NetCtx<E, T>,
    ) {
        self.forward(host, id, cx)
    }

    /// Host `node` answers the echo request `id` that reached it: the reply reuses the
    /// request's slot and copies its TOS (Linux `icmp_reply`), so an ECT request
    /// (`ping -Q`) gets an ECT(0) reply.
    pub fn echo_reply<E: From<NetEv>, T: Tap>(
        &mut self,
        node: NodeId,
        id: PktId,
        cx: &mut NetCtx<E, T>,
    ) {
        let r = cx.pool.get_mut(id);
        debug_assert_eq!(r.kind, PktKind::Ping);
        r.kind = PktKind::Pong;
        std::mem::swap(&mut r.src, &mut r.dst);
        r.ecn = if r.ecn == NOT_ECT { NOT_ECT } else { ECT0 };
        self.egress(node, id, cx);
    }
}
