//! Accurate ECN (RFC 9768) as Linux implements it: the pieces both halves of a connection
//! share. Sources: Linux `include/net/tcp_ecn.h` (negotiation tables, the receiver's
//! counters, `tcp_accecn_echo_syn_ect`, `tcp_accecn_set_ace`), `net/ipv4/tcp_input.c`
//! (`__tcp_accecn_process`, `tcp_accecn_process_option`) and `net/ipv4/tcp_output.c`
//! (`tcp_options_fit_accecn`, the AccECN option in `tcp_options_write`); the versions read
//! are named in docs/references.md.
//!
//! - Negotiation: an AccECN client sends AE|CWR|ECE on its SYN; an AccECN server answers
//!   with the SYN's IP-ECN codepoint in the SYN-ACK's ACE field (`synack_ace`); a server
//!   that knows only RFC 3168 answers ECE (ACE 0b001) and both fall back to RFC 3168; one
//!   without ECN answers 0b000 and there is none.
//! - The data receiver counts CE-marked packets (`r.cep`, starting at 5, RFC 9768 §3.2.1)
//!   and the payload bytes of each ECN codepoint (`r.e0b`, `r.e1b` starting at 1, `r.ceb`
//!   at 0, §3.2.1) and puts `r.cep` mod 8 into the ACE field (AE, CWR, ECE) of every ACK
//!   and the byte counters, 24 bits each, into the AccECN option when it fits.
//! - The data sender turns the change of ACE since the last ACK into a count of newly
//!   CE-marked packets; where 8 or more marks may fall between two ACKs that arrive, the
//!   newly acknowledged packets and the option's CE bytes decide how many times the 3-bit
//!   field wrapped (`Feedback::ce_delta`, RFC 9768 §3.2.2.5.2 and Linux's heuristic).
//!
//! The option travels in the packet's last SACK slot (`Packet::sack[MAX_SACK - 1]`): with
//! timestamps, Linux sends it only beside at most 2 SACK blocks (40 option bytes: 12 for
//! timestamps, 28 for 3 blocks), so that slot is free whenever it is on a segment; without
//! timestamps Linux would send 3 blocks and the option, and cclab sends 2 (the one
//! deviation). The AE bit travels in `flags` as [`AE`] (`packet.rs`).

use crate::packet::*;

/// Linux `TCP_ACCECN_CEP_INIT_OFFSET`: `r.cep` starts at 5 (RFC 9768 §3.2.1).
pub const CEP_INIT: u32 = 5;
/// `TCP_ACCECN_E0B_INIT_OFFSET`, `TCP_ACCECN_E1B_INIT_OFFSET`, `TCP_ACCECN_CEB_INIT_OFFSET`.
pub const E0B_INIT: u32 = 1;
pub const E1B_INIT: u32 = 1;
pub const CEB_INIT: u32 = 0;
/// `TCP_ACCECN_CEP_ACE_MASK`: the ACE field is 3 bits.
pub const ACE_MASK: u32 = 0x7;
/// `TCP_ACCECN_SAFETY_SHIFT` (RFC 9768 Appendix A.2.2's SAFETY_FACTOR of 1/2).
const SAFETY_SHIFT: u32 = 1;
/// `PKTS_ACKED_WEIGHT`, `PKTS_ACKED_PREC`, `ACK_COMP_THRESH` (`tcp_input.c`): an EWMA of
/// packets per ACK above 4 means ACKs are thinned, and a wrap of ACE is to be expected.
const PKTS_ACKED_WEIGHT: u32 = 6;
const PKTS_ACKED_PREC: u32 = 6;
const ACK_COMP_THRESH: u32 = 4;
/// Option kinds (RFC 9768 §3.2.3: AccECN0 = 172, AccECN1 = 174) and sizes.
pub const TCPOPT_ACCECN0: u8 = 172;
pub const TCPOPT_ACCECN1: u8 = 174;
const TCPOLEN_ACCECN_BASE: u32 = 2;
const TCPOLEN_ACCECN_PERFIELD: u32 = 3;
const TCP_ACCECN_NUMFIELDS: u32 = 3;
/// 24-bit counters on the wire.
const MASK24: u32 = 0xff_ffff;
/// `MAX_TCP_OPTION_SPACE`; a SACK block's bytes.
const MAX_TCP_OPTION_SPACE: u32 = 40;
const TCPOLEN_SACK_PERBLOCK: u32 = 8;

/// What the two ends agreed (`tcp_ecn_mode_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum EcnMode {
    #[default]
    Off,
    Rfc3168,
    AccEcn,
}

/// The ACE field of `flags` (`tcp_accecn_ace`: AE·4 + CWR·2 + ECE).
#[inline]
pub fn ace(flags: u8) -> u32 {
    ((flags & AE != 0) as u32) << 2 | ((flags & CWR != 0) as u32) << 1 | (flags & ECE != 0) as u32
}

/// `flags` with its ACE field set to `v` mod 8.
#[inline]
pub fn with_ace(flags: u8, v: u32) -> u8 {
    let mut f = flags & !(AE | CWR | ECE);
    if v & 4 != 0 {
        f |= AE;
    }
    if v & 2 != 0 {
        f |= CWR;
    }
    if v & 1 != 0 {
        f |= ECE;
    }
    f
}

/// `tcp_accecn_echo_syn_ect` (RFC 9768 Table 2): the SYN-ACK's ACE for the IP-ECN codepoint
/// the SYN arrived with (Not-ECT 0b010, ECT(1) 0b011, ECT(0) 0b100, CE 0b110); the client's
/// third ACK reflects the SYN-ACK's codepoint the same way.
pub fn synack_ace(ect: u8) -> u32 {
    [0b010, 0b011, 0b100, 0b110][(ect & 3) as usize]
}

/// `tcp_accecn_syn_requested`: a SYN asks for AccECN when its ACE is neither 000 nor 011.
pub fn syn_requests_accecn(flags: u8) -> bool {
    let a = ace(flags);
    a != 0 && a != 0b011
}

/// `tcp_ecn_rcv_synack` (RFC 9768 Table 3): the mode an AccECN client ends in from the
/// SYN-ACK's ACE: 000 or 111 no ECN; 001 or 101 RFC 3168; anything else AccECN.
pub fn mode_from_synack(flags: u8) -> EcnMode {
    match ace(flags) {
        0b000 | 0b111 => EcnMode::Off,
        0b001 | 0b101 => EcnMode::Rfc3168,
        _ => EcnMode::AccEcn,
    }
}

/// The AccECN option of one segment: how many of its fields are present (0–3) and which
/// order they are in; the three 24-bit byte counters as sent (with their initial offsets).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct AccEcnOpt {
    /// AccECN1 (kind 174: e1b, ceb, e0b) rather than AccECN0 (172: e0b, ceb, e1b).
    pub order1: bool,
    pub fields: u8,
    pub e0b: u32,
    pub ceb: u32,
    pub e1b: u32,
}

impl AccEcnOpt {
    /// Is the counter of ECN codepoint `ect` (ECT0, ECT1 or CE) among the fields sent?
    fn carries(&self, ect: u8) -> bool {
        let pos = match (ect, self.order1) {
            (ECT1, true) | (ECT0, false) => 1,
            (CE, _) => 2,
            _ => 3,
        };
        self.fields >= pos
    }
}

const PRESENT: u64 = 1 << 51;

/// Put `o` on `p` (in its last SACK slot; see the module comment).
pub fn put_option(p: &mut Packet, o: &AccEcnOpt) {
    debug_assert!((p.nsack as usize) < MAX_SACK);
    let lo = (o.e1b & MASK24) as u64
        | ((o.ceb & MASK24) as u64) << 24
        | (o.fields as u64) << 48
        | (o.order1 as u64) << 50
        | PRESENT;
    p.sack[MAX_SACK - 1] = (lo, (o.e0b & MASK24) as u64);
}

/// The AccECN option `p` carries, if any.
pub fn option(p: &Packet) -> Option<AccEcnOpt> {
    if (p.nsack as usize) >= MAX_SACK {
        return None;
    }
    let (lo, hi) = p.sack[MAX_SACK - 1];
    (lo & PRESENT != 0).then_some(AccEcnOpt {
        order1: lo >> 50 & 1 != 0,
        fields: (lo >> 48 & 3) as u8,
        e1b: (lo & MASK24 as u64) as u32,
        ceb: (lo >> 24 & MASK24 as u64) as u32,
        e0b: (hi & MASK24 as u64) as u32,
    })
}

/// `tcp_ecnfield_to_accecn_optfield`: the fields an option needs so that the counter of
/// codepoint `ect` is in it, in AccECN1 order (ECT(1) 1, CE 2, ECT(0) 3).
pub fn optfield(ect: u8) -> u8 {
    match ect {
        ECT1 => 1,
        CE => 2,
        ECT0 => 3,
        _ => 0,
    }
}

/// `tcp_options_fit_accecn` for an established segment: the most fields (at least
/// `required`) that fit in the option space left beside `used` bytes of timestamps and
/// `nsack` SACK blocks, taking up to two SACK blocks away (never below 2) when the required
/// fields do not fit. Returns (fields, option bytes counted in the header, SACK blocks
/// kept), or `None` when no option fits.
pub fn fit_option(required: u8, used_ts: u32, nsack: usize) -> Option<(u8, u32, usize)> {
    let sack_bytes = |n: usize| {
        if n == 0 {
            0
        } else {
            4 + TCPOLEN_SACK_PERBLOCK * n as u32
        }
    };
    let mut nsack = nsack;
    let mut rem = (MAX_TCP_OPTION_SPACE - used_ts - sack_bytes(nsack)) as i64;
    // SACK's two leading NOPs can take up to 2 bytes of the option's padding.
    let saving = if nsack > 0 { 2 } else { 0 };
    let mut fields = TCP_ACCECN_NUMFIELDS as i64;
    let mut size = (TCPOLEN_ACCECN_BASE + TCPOLEN_ACCECN_PERFIELD * TCP_ACCECN_NUMFIELDS) as i64;
    let req = required as i64;
    while fields >= req {
        let align = if size & 3 > saving {
            (size + 3) & !3
        } else {
            size & !3
        };
        if rem >= align {
            size = align;
            break;
        } else if fields == req && nsack > 2 && req > 0 {
            nsack -= 1;
            rem += TCPOLEN_SACK_PERBLOCK as i64;
            fields = TCP_ACCECN_NUMFIELDS as i64;
            size = (TCPOLEN_ACCECN_BASE + TCPOLEN_ACCECN_PERFIELD * TCP_ACCECN_NUMFIELDS) as i64;
            continue;
        }
        fields -= 1;
        size -= TCPOLEN_ACCECN_PERFIELD as i64;
    }
    if fields < req {
        return None;
    }
    Some((fields as u8, size as u32, nsack))
}

/// The data receiver's counters and option state (Linux `received_ce`,
/// `received_ecn_bytes[]`, `accecn_minlen`, `accecn_opt_demand`, `prev_ecnfield`).
#[derive(Clone, Debug, Default)]
pub struct RcvCounters {
    /// CE-marked packets received (`r.cep` less its initial 5).
    pub received_ce: u32,
    /// Payload bytes received per codepoint: [ECT(1), ECT(0), CE] (`received_ecn_bytes`).
    pub bytes: [u32; 3],
    /// Fields the next option must carry (`accecn_minlen`).
    pub minlen: u8,
    /// Options still owed after a change (`accecn_opt_demand`).
    pub demand: u8,
    /// The IP-ECN field of the last packet (`prev_ecnfield`).
    pub prev: u8,
    /// When the last option went (`accecn_opt_tstamp`), for the beacon.
    pub opt_sent_at: crate::engine::SimTime,
}

impl RcvCounters {
    /// `tcp_ecn_received_counters` for a segment of `segs` packets and `len` payload bytes
    /// with IP-ECN field `ecn`. True when the change of the field asks for an ACK now
    /// (`ICSK_ACK_NOW` on an edge).
    pub fn on_segment(&mut self, ecn: u8, segs: u32, len: u32) -> bool {
        if ecn != NOT_ECT {
            if ecn == CE {
                self.received_ce = self.received_ce.wrapping_add(segs);
            }
            if len > 0 {
                let i = (ecn - 1) as usize;
                let old = self.bytes[i];
                self.bytes[i] = old.wrapping_add(len);
                self.minlen = self.minlen.max(optfield(ecn));
                // An option at least once per 2^22 bytes of any counter.
                if (self.bytes[i] ^ old) & 0xffc0_0000 != 0 {
                    self.demand = self.demand.max(1);
                }
            }
        }
        let edge = self.prev != ecn;
        if edge || ecn == CE {
            self.prev = ecn;
            self.demand = 2;
        }
        edge
    }

    /// The ACE value of the next ACK (`tcp_accecn_set_ace`).
    pub fn ace(&self) -> u32 {
        self.received_ce.wrapping_add(CEP_INIT) & ACE_MASK
    }

    /// The option with `fields` fields, in Linux's AccECN1 order.
    pub fn option(&self, fields: u8) -> AccEcnOpt {
        AccEcnOpt {
            order1: true,
            fields,
            e1b: self.bytes[(ECT1 - 1) as usize].wrapping_add(E1B_INIT),
            e0b: self.bytes[(ECT0 - 1) as usize].wrapping_add(E0B_INIT),
            ceb: self.bytes[(CE - 1) as usize].wrapping_add(CEB_INIT),
        }
    }

    /// After an option went: `tcp_options_write`'s bookkeeping.
    pub fn option_sent(&mut self, now: crate::engine::SimTime) {
        self.minlen = 0;
        self.opt_sent_at = now;
        self.demand = self.demand.saturating_sub(1);
    }
}

/// The data sender's side (Linux `delivered_ce` mod 8 against ACE, `delivered_ecn_bytes[]`,
/// `est_ecnfield`, `pkts_acked_ewma`, `saw_accecn_opt`).
#[derive(Clone, Debug, Default)]
pub struct Feedback {
    /// CE-marked packets the receiver has reported (`tp->delivered_ce` as ACE sees it).
    pub delivered_ce: u64,
    /// Bytes the receiver reported per codepoint: [ECT(1), ECT(0), CE].
    pub bytes: [u32; 3],
    /// The codepoint whose bytes the last unambiguous option increased (`est_ecnfield`,
    /// 0 none).
    pub est: u8,
    pub ewma: u32,
    /// An AccECN option has been seen (`saw_accecn_opt`).
    pub saw_opt: bool,
    /// The newest TSval of an ACK (`FLAG_TS_PROGRESS`).
    pub last_tsval: crate::engine::SimTime,
}

impl Feedback {
    /// `tcp_accecn_process_option`: read the option (or estimate without one); true when
    /// the CE byte count it leaves can be trusted for this ACK.
    fn process_option(&mut self, o: Option<AccEcnOpt>, delivered_bytes: u64) -> bool {
        let Some(o) = o else {
            if self.saw_opt && self.est != 0 {
                let i = (self.est - 1) as usize;
                self.bytes[i] = self.bytes[i].wrapping_add(delivered_bytes as u32);
                return true;
            }
            return false;
        };
        self.saw_opt = true;
        // Linux compares each moved counter with the estimate as it was on entry
        // (`estimate_ecnfield`, a local copy), not as this loop updates it.
        let old_est = self.est;
        let mut res = old_est != 0;
        let mut ambiguous = false;
        let mut first_changed = false;
        for ect in [ECT1, CE, ECT0] {
            if !o.carries(ect) {
                continue;
            }
            let (wire, init) = match ect {
                ECT1 => (o.e1b, E1B_INIT),
                CE => (o.ceb, CEB_INIT),
                _ => (o.e0b, E0B_INIT),
            };
            let cnt = &mut self.bytes[(ect - 1) as usize];
            // `tcp_update_ecn_bytes`: the 24-bit difference, sign-extended.
            let d = (wire.wrapping_sub(init).wrapping_sub(*cnt) & MASK24) as i32;
            let d = (d << 8) >> 8;
            *cnt = cnt.wrapping_add(d as u32);
            if d < 0 {
                res = false;
                ambiguous = true;
            }
            if d != 0 && ect != old_est {
                if !first_changed {
                    self.est = ect;
                    first_changed = true;
                } else {
                    res = false;
                    ambiguous = true;
                }
            }
        }
        if ambiguous {
            self.est = 0;
        }
        res
    }

    /// `__tcp_accecn_process`: the packets newly CE-marked that this ACK reports, from its
    /// ACE field and option, given the packets and bytes it newly delivered (cumulatively
    /// and by SACK) and whether it made progress at all. `sack_or_open`: SACK is on or the
    /// sender is in Open or CWR (the newly delivered counts are then trustworthy).
    pub fn ce_delta(
        &mut self,
        p: &Packet,
        progress: bool,
        delivered_pkts: u32,
        delivered_bytes: u64,
        mss: u32,
        sack_or_open: bool,
    ) -> u32 {
        if !progress {
            return 0; // a reordered ACK, or one that tells nothing new
        }
        let old_ceb = self.bytes[(CE - 1) as usize];
        let opt_valid = self.process_option(option(p), delivered_bytes);
        if delivered_pkts > 0 {
            let e = if self.ewma == 0 {
                delivered_pkts << PKTS_ACKED_PREC
            } else {
                (((self.ewma << PKTS_ACKED_WEIGHT) - self.ewma)
                    + (delivered_pkts << PKTS_ACKED_PREC))
                    >> PKTS_ACKED_WEIGHT
            };
            self.ewma = e.min(0xffff);
        }
        let corrected = ace(p.flags).wrapping_sub(CEP_INIT);
        let delta = corrected.wrapping_sub(self.delivered_ce as u32) & ACE_MASK;
        if delivered_pkts <= ACE_MASK {
            return delta;
        }
        // RFC 9768 §3.2.2.5.2: assume as many wraps as the delivered packets allow.
        let safe = delivered_pkts - (delivered_pkts.wrapping_sub(delta) & ACE_MASK);
        if opt_valid {
            let d_ceb = self.bytes[(CE - 1) as usize].wrapping_sub(old_ceb);
            if d_ceb == 0 {
                return delta;
            }
            if delivered_pkts >= (ACE_MASK + 1) * 2 && sack_or_open {
                if delivered_bytes <= d_ceb as u64 {
                    return safe;
                }
                let est = (d_ceb as u64 * delivered_pkts as u64).div_ceil(delivered_bytes) as u32;
                return safe.min(delta + (est & !ACE_MASK));
            }
            if d_ceb as u64 > delta as u64 * mss as u64 {
                return safe;
            }
            if (d_ceb as u64) < (safe as u64 * mss as u64) >> SAFETY_SHIFT {
                return delta;
            }
        } else if self.ewma > ACK_COMP_THRESH << PKTS_ACKED_PREC {
            return delta;
        }
        safe
    }

    /// CE-marked payload bytes the receiver has reported (its `r.ceb`).
    pub fn ce_bytes(&self) -> u32 {
        self.bytes[(CE - 1) as usize]
    }
}

#[cfg(test)]
#[path = "accecn_tests.rs"]
mod tests;
