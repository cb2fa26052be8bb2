//! Ingress policing (`[[police]]`): tc's `ingress` qdisc with a `police` action on the
//! interface a link arrives at (`tc qdisc add dev eth0 handle ffff: ingress; tc filter add
//! dev eth0 parent ffff: … police rate … burst … mtu … drop`). The policer
//! (`qdisc/police.rs`) sees each packet that arrives over the link at its far node before
//! the node forwards it or its stack takes it — at a host after GRO, as Linux runs the
//! ingress hook (`sch_handle_ingress`) on what `napi_gro_receive` hands up, so with
//! `[host] gro` it polices aggregates. The length it sees is the skb's: for a GRO
//! aggregate one set of headers and every payload (`skb->len`), not the sum of the
//! segments' IP lengths.

use super::packet::Packet;
use crate::qdisc::police::{self, Action, PoliceSpec, Policer};
use crate::schema::check::{Checker, Tab};
use crate::schema::{Key, Schema, Ty};

const LINK: Key = Key {
    name: "link",
    ty: Ty::Link,
    default: "required",
    allowed: "",
    meaning: "police what arrives over this link, at its far end (links are directional: `bottleneck` polices data arriving at the receiver, `bottleneck_rev` the ACKs arriving at the sender)",
};

/// `[[police]]`.
pub static KEYS: Schema = Schema {
    title: "[[police]]",
    place: "[[police]]",
    noun: "policer",
    about: "",
    keys: &[
        LINK,
        police::RATE,
        police::BURST,
        police::MTU,
        police::PEAKRATE,
        police::CONFORM,
        police::EXCEED,
    ],
    with: &[],
    variants: None,
};

/// An ingress policer as a scenario gives it.
#[derive(Clone, Debug, PartialEq)]
pub struct IngressSpec {
    pub link: String,
    pub police: PoliceSpec,
}

/// Read every `[[police]]`.
pub fn parse(ck: &mut Checker, root: Tab) -> Vec<IngressSpec> {
    let tables = ck.array_of_tables(root, "police").unwrap_or_default();
    let mut out = Vec::new();
    for (path, t) in &tables {
        let t = Tab { path, t };
        ck.check_keys(t, &KEYS, None);
        let link: Option<String> = ck.need(t, &LINK, "\"bottleneck\"");
        if let (Some(link), Some(police)) = (link, police::parse_police(ck, t)) {
            out.push(IngressSpec { link, police });
        }
    }
    out
}

/// The ingress policer of a link, with what it let through and dropped.
#[derive(Clone, Debug)]
pub struct Ingress {
    pub policer: Policer,
}

impl Ingress {
    pub fn new(spec: PoliceSpec) -> Ingress {
        Ingress {
            policer: Policer::new(spec),
        }
    }

    /// Does packet `p`, arriving at `now`, go on?
    #[inline]
    pub fn admits(&mut self, p: &Packet, now: crate::engine::SimTime) -> bool {
        self.policer.act(skb_len(p), now) == Action::Pass
    }
}

/// The length Linux's ingress sees: a GRO aggregate has one set of headers.
#[inline]
pub fn skb_len(p: &Packet) -> u32 {
    if p.segs > 1 {
        let hdr = (p.size - p.payload) / p.segs as u32;
        hdr + p.payload
    } else {
        p.size
    }
}
