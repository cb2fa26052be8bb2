//! Ouroboros flows (seed 002): the congestion API of the prototype, one trait with the four
//! calls the seed names, and its algorithms.
//!
//! The seed ("Congestion avoidance in Ouroboros", 2020) defines a flow as two endpoints
//! between which packets offered at the ingress have a non-zero chance of emerging at the
//! egress: no retransmission, no ordering, no ACKs. Congestion avoidance sits at the
//! ingest point of the network, in the flow allocator of the IPCP, and sees only this:
//!
//! - `update_context_at_sender(len)`: a packet of `len` bytes is about to be sent; answers
//!   how long the sender must wait before it leaves (the prototype's `ctx_update_snd`,
//!   then `wnd_wait`, which sleeps: the packet is counted before the wait);
//! - `update_context_at_receiver(len, ecn)`: a packet arrived with this one-octet ECN
//!   value; may ask for a FLOW_UPDATE carrying a 16-bit ECE (`ctx_update_rcv`);
//! - `update_context_at_sender_ece(ece)`: a FLOW_UPDATE arrived (`ctx_update_ece`);
//! - `update_ecn_in_router(ecn, queue)`: every IPCP that writes the packet, the source's
//!   own included, updates its ECN octet from the queue of the outgoing N-1 flow
//!   (`calc_ecn`). It depends on the layer's policy only, not on a flow's state.
//!
//! Time is the host's monotonic clock in nanoseconds, passed in (the prototype reads
//! `CLOCK_MONOTONIC`; MB-ECN aligns its windows to absolute multiples of 2^n ns of it).
//!
//! Algorithms: [`mbecn::MbEcn`] (multi-bit ECN, the prototype's default, in three readings:
//! the 0.18.0 code, the blog's prose and the later prototype) and [`nop::Nop`] (the
//! prototype's `ca-nop.c`: no congestion avoidance). Adding one touches its file and one
//! line of [`FlowCa`].

pub mod endpoint;
pub mod mbecn;
pub mod nop;
pub mod router;
pub mod text;

use std::fmt::Write;

/// The four calls of the seed's congestion API, and the statistics the flow allocator
/// prints. Each algorithm keeps the names and the integer arithmetic of its source.
pub trait CongestionApi {
    /// A packet of `len` bytes is to be sent at `now_ns`: how long (ns) the sender waits
    /// before it leaves; 0 or less = at once (the prototype's signed `time_t` wait).
    fn update_context_at_sender(&mut self, now_ns: u64, len: usize) -> i64;
    /// A packet of `len` bytes arrived with congestion value `ecn`: `Some(ece)` asks for a
    /// FLOW_UPDATE to the sender carrying `ece`.
    fn update_context_at_receiver(&mut self, len: usize, ecn: u8) -> Option<u16>;
    /// A FLOW_UPDATE carrying `ece` reached the sender.
    fn update_context_at_sender_ece(&mut self, ece: u16);
    /// The ECN octet a packet leaves an IPCP with, given the one it arrived with and the
    /// packets already queued for the outgoing N-1 flow.
    fn update_ecn_in_router(&self, ecn: u8, queue: usize) -> u8;
    /// The algorithm's lines of the flow-allocator statistics file, in the prototype's
    /// format (`print_stats`); nothing for an algorithm without them (`ca-nop.c`).
    fn print_stats(&self, out: &mut String);
}

/// How long the sender really sleeps for a wait the algorithm asked for: nothing for a
/// wait ≤ 0, and at most one second (`mb_ecn_wnd_wait`: "Don't care throttling < 1s").
pub fn wnd_wait_ns(wait: i64) -> u64 {
    const BILLION: i64 = 1_000_000_000;
    if wait <= 0 {
        0
    } else if wait > BILLION {
        BILLION as u64
    } else {
        wait as u64
    }
}

/// One line of the flow-allocator statistics: the label padded as the prototype's
/// `"%-33s%20s"`-shaped format strings do (label, colon, spaces to column 33, the value
/// right-aligned in 20).
pub fn stat_line(out: &mut String, label: &str, value: impl std::fmt::Display) {
    let _ = writeln!(out, "{:<33}{:>20}", format!("{label}:"), value);
}

/// A flow's congestion avoidance: the algorithms, dispatched by `match`.
#[derive(Clone, Debug)]
pub enum FlowCa {
    MbEcn(mbecn::MbEcn),
    Nop(nop::Nop),
}

/// The layer's congestion-avoidance policy, as `irm ipcp bootstrap … congestion` sets it:
/// which algorithm every flow of the layer runs, and (for MB-ECN) which reading of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowCaKind {
    MbEcn(mbecn::Mode),
    Nop,
}

/// The names `flow_ca` accepts, with what each is.
pub const FLOW_CA_NAMES: &[(&str, &str)] = &[
    (
        "mb-ecn",
        "multi-bit ECN as the prototype's 0.18.0 code implements it (the default)",
    ),
    (
        "mb-ecn-blog",
        "multi-bit ECN as the seed's prose describes it: ECE halved on ecn = 0, an \
         update on every increase, M = 8",
    ),
    (
        "mb-ecn-current",
        "multi-bit ECN with the prototype's later changes (2021: update every 8 packets, \
         unconditional additive increase, scaling in one step with a carry)",
    ),
    (
        "nop",
        "no congestion avoidance (ca-nop.c): send at once, never mark",
    ),
];

impl Default for FlowCaKind {
    /// MB-ECN as 0.18.0 has it: the prototype's default (`DEFAULT_CONG_AVOID`).
    fn default() -> FlowCaKind {
        FlowCaKind::MbEcn(mbecn::Mode::Code0180)
    }
}

impl FlowCaKind {
    /// The policy named `name` (one of [`FLOW_CA_NAMES`]).
    pub fn by_name(name: &str) -> Option<FlowCaKind> {
        Some(match name {
            "mb-ecn" => FlowCaKind::MbEcn(mbecn::Mode::Code0180),
            "mb-ecn-blog" => FlowCaKind::MbEcn(mbecn::Mode::Blog),
            "mb-ecn-current" => FlowCaKind::MbEcn(mbecn::Mode::Current),
            "nop" => FlowCaKind::Nop,
            _ => return None,
        })
    }

    /// A new flow's context, created at `now_ns` (`ctx_create`).
    pub fn new_ctx(self, now_ns: u64) -> FlowCa {
        match self {
            FlowCaKind::MbEcn(mode) => FlowCa::MbEcn(mbecn::MbEcn::new(mode, now_ns)),
            FlowCaKind::Nop => FlowCa::Nop(nop::Nop),
        }
    }

    /// `update_ecn_in_router` of the layer's policy (it needs no flow's state).
    #[inline]
    pub fn update_ecn_in_router(self, ecn: u8, queue: usize) -> u8 {
        match self {
            FlowCaKind::MbEcn(_) => mbecn::calc_ecn(ecn, queue),
            FlowCaKind::Nop => ecn,
        }
    }
}

impl FlowCa {
    /// MB-ECN's window counts (none for other algorithms).
    pub fn windows(&self) -> Option<mbecn::WindowCounts> {
        match self {
            FlowCa::MbEcn(c) => Some(c.windows),
            FlowCa::Nop(_) => None,
        }
    }
}

impl CongestionApi for FlowCa {
    #[inline]
    fn update_context_at_sender(&mut self, now_ns: u64, len: usize) -> i64 {
        match self {
            FlowCa::MbEcn(c) => c.update_context_at_sender(now_ns, len),
            FlowCa::Nop(c) => c.update_context_at_sender(now_ns, len),
        }
    }
    #[inline]
    fn update_context_at_receiver(&mut self, len: usize, ecn: u8) -> Option<u16> {
        match self {
            FlowCa::MbEcn(c) => c.update_context_at_receiver(len, ecn),
            FlowCa::Nop(c) => c.update_context_at_receiver(len, ecn),
        }
    }
    #[inline]
    fn update_context_at_sender_ece(&mut self, ece: u16) {
        match self {
            FlowCa::MbEcn(c) => c.update_context_at_sender_ece(ece),
            FlowCa::Nop(c) => c.update_context_at_sender_ece(ece),
        }
    }
    #[inline]
    fn update_ecn_in_router(&self, ecn: u8, queue: usize) -> u8 {
        match self {
            FlowCa::MbEcn(c) => c.update_ecn_in_router(ecn, queue),
            FlowCa::Nop(c) => c.update_ecn_in_router(ecn, queue),
        }
    }
    fn print_stats(&self, out: &mut String) {
        match self {
            FlowCa::MbEcn(c) => c.print_stats(out),
            FlowCa::Nop(c) => c.print_stats(out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_and_unknown_names_do_not() {
        for (name, _) in FLOW_CA_NAMES {
            assert!(FlowCaKind::by_name(name).is_some(), "{name}");
        }
        assert_eq!(FlowCaKind::by_name("mbecn"), None);
    }

    #[test]
    fn the_wait_is_capped_at_one_second_and_never_negative() {
        assert_eq!(wnd_wait_ns(-5), 0);
        assert_eq!(wnd_wait_ns(0), 0);
        assert_eq!(wnd_wait_ns(16_777_216), 16_777_216);
        assert_eq!(wnd_wait_ns(1_000_000_001), 1_000_000_000);
    }

    #[test]
    fn nop_is_a_real_second_algorithm_behind_the_same_trait() {
        // The trait is used through the enum, as the simulator will use it.
        let mut ca = FlowCaKind::by_name("nop").unwrap().new_ctx(0);
        for i in 0..1000 {
            assert_eq!(ca.update_context_at_sender(i, 1000), 0);
            assert_eq!(ca.update_context_at_receiver(1000, 63), None);
        }
        ca.update_context_at_sender_ece(8000);
        assert_eq!(ca.update_context_at_sender(2000, 1000), 0);
        assert_eq!(FlowCaKind::Nop.update_ecn_in_router(0, 1000), 0);
        let mut s = String::new();
        ca.print_stats(&mut s);
        assert!(s.is_empty());
    }

    #[test]
    fn stat_lines_have_the_prototypes_columns() {
        let mut s = String::new();
        stat_line(&mut s, "Sent (packets)", 1605719);
        // "Sent (packets):" padded to 33 columns, then the value right-aligned in 20.
        assert_eq!(s, "Sent (packets):                               1605719\n");
        assert_eq!(s.len(), 33 + 20 + 1);
    }
}
