//! Loss injected on a link (`[[loss]]`): packets sent onto the link are dropped at
//! random with a probability, or chosen data packets of chosen flows ("drop the n-th data
//! packet of flow f", as the seeds' single-loss experiments), or every n-th data packet
//! (a periodic dropper, like the kernel module of seed 003's "drop 1 in 25,000" tests).
//! "Data packets" are TCP segments with payload from a flow's sender, retransmissions
//! included.

use crate::engine::Rng;
use crate::packet::{Packet, PktKind};
use crate::schema::check::{int, join, type_name, Checker, Tab};
use crate::schema::{Key, Schema, Ty, REQUIRED};
use toml::Value;

/// Loss injection on a named link.
#[derive(Clone, Debug, PartialEq)]
pub struct LossSpec {
    pub link: String,
    /// Each packet crossing the link is dropped with this probability.
    pub rate: f64,
    /// Drop the n-th (1-based) data packet of flow `flow` (index in `flows`) crossing it.
    pub drop_nth: Vec<(usize, u64)>,
    /// Drop every n-th data packet crossing the link (a periodic dropper, as the kernel
    /// module of seed 003's "drop 1 in 25,000" tests); 0 = off.
    pub every: u64,
}

/// Loss injected on a link.
#[derive(Debug)]
pub struct LinkLoss {
    pub rate: f64,
    pub rng: Rng,
    /// (connection, n): drop the n-th data packet of that connection crossing the link.
    pub drop_nth: Vec<(u32, u64)>,
    /// Data packets of each listed connection seen so far (parallel to `drop_nth`).
    pub seen: Vec<u64>,
    /// Drop every n-th data packet (0 = off), and the data packets counted so far.
    pub every: u64,
    pub data_seen: u64,
    pub dropped: u64,
}

/// The loss stage's classifier: the connection a packet counts for in the counting
/// droppers (`drop_nth`, `every`), or `None` if they do not count it. They count a
/// transfer's data as the seeds' droppers do (seed 003's kernel module dropping "1 in
/// 25,000" data packets; a test dropping a flow's n-th segment): TCP segments with payload
/// from the connection's client, the data sender. Random loss (`rate`) takes any packet.
#[inline]
pub fn counted(p: &Packet) -> Option<u32> {
    (p.kind == PktKind::Tcp && p.payload > 0 && p.from_client).then_some(p.conn)
}

impl LinkLoss {
    /// Does the link lose packet `p`? The counting droppers count what [`counted`] says.
    #[inline]
    pub fn loses(&mut self, p: &Packet) -> bool {
        let mut drop = false;
        if let Some(conn) = counted(p) {
            if self.every > 0 {
                self.data_seen += 1;
                if self.data_seen.is_multiple_of(self.every) {
                    drop = true;
                }
            }
            for (k, &(c, n)) in self.drop_nth.iter().enumerate() {
                if c == conn {
                    self.seen[k] += 1;
                    if self.seen[k] == n {
                        drop = true;
                    }
                }
            }
        }
        if self.rate > 0.0 && self.rng.bernoulli(self.rate) {
            drop = true;
        }
        if drop {
            self.dropped += 1;
        }
        drop
    }
}

const LINK: Key = Key {
    name: "link",
    ty: Ty::Link,
    default: REQUIRED,
    allowed: "",
    meaning: "where to drop (links are directional: loss on `bottleneck` drops data, not the ACKs on `bottleneck_rev`)",
};
const RATE: Key = Key {
    name: "rate",
    ty: Ty::Prob,
    default: "`0` (none)",
    allowed: "",
    meaning: "each packet sent onto the link (data, ACK, ping or request) is dropped with this probability",
};
const DROP_NTH: Key = Key {
    name: "drop_nth",
    ty: Ty::Tables(&DROP),
    default: "none",
    allowed: "",
    meaning: "drop chosen data packets of chosen flows: `[{ flow = 0, n = 1000 }]`",
};
const EVERY: Key = Key {
    name: "every",
    ty: Ty::Int(1, i64::MAX),
    default: "none (off)",
    allowed: "",
    meaning: "drop every n-th data packet sent onto the link, all flows counted together",
};

/// `[[loss]]`.
pub static KEYS: Schema = Schema {
    title: "[[loss]]",
    place: "[[loss]]",
    noun: "loss",
    about: "",
    keys: &[LINK, RATE, DROP_NTH, EVERY],
    with: &[],
    variants: None,
};

const FLOW: Key = Key {
    name: "flow",
    ty: Ty::Int(0, i64::MAX),
    default: REQUIRED,
    allowed: "0 to the number of flows − 1",
    meaning: "the flow, numbered from 0 in the order of `[[flow]]` (or of the default flows)",
};
const N: Key = Key {
    name: "n",
    ty: Ty::Int(1, i64::MAX),
    default: REQUIRED,
    allowed: "",
    meaning: "drop the n-th data packet of that flow that crosses the link (counted from 1)",
};

/// One `drop_nth` entry.
pub static DROP: Schema = Schema {
    title: "drop_nth entries",
    place: "drop_nth",
    noun: "drop_nth",
    about: "",
    keys: &[FLOW, N],
    with: &[],
    variants: None,
};

/// Read every `[[loss]]`; `n_flows` (when known) bounds the flows `drop_nth` names.
pub fn parse(ck: &mut Checker, root: Tab, n_flows: Option<usize>) -> Vec<LossSpec> {
    let tables = ck.array_of_tables(root, "loss").unwrap_or_default();
    let mut losses = Vec::new();
    for (path, t) in &tables {
        let t = Tab { path, t };
        ck.check_keys(t, &KEYS, None);
        let link: Option<String> = ck.need(t, &LINK, "\"bottleneck\"");
        let rate: Option<f64> = ck.get(t, &RATE);
        let drop_nth = drop_nth(ck, t, n_flows);
        let every: u64 = ck.get(t, &EVERY).unwrap_or(0);
        losses.push(LossSpec {
            link: link.unwrap_or_default(),
            rate: rate.unwrap_or(0.0),
            drop_nth,
            every,
        });
    }
    losses
}

fn drop_nth(ck: &mut Checker, t: Tab, n_flows: Option<usize>) -> Vec<(usize, u64)> {
    let key = join(t.path, DROP_NTH.name);
    let example = "[{ flow = 0, n = 100 }]";
    let Some(v) = t.t.get(DROP_NTH.name) else {
        return Vec::new();
    };
    let Value::Array(a) = v else {
        ck.err(
            &key,
            Some(v),
            format!(
                "expected an array such as {example}, found {}",
                type_name(v)
            ),
        );
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, e) in a.iter().enumerate() {
        let path = format!("{key}.{i}");
        let Value::Table(et) = e else {
            ck.err(
                &path,
                Some(e),
                format!(
                    "expected a table such as {{ flow = 0, n = 100 }}, found {}",
                    type_name(e)
                ),
            );
            continue;
        };
        let et = Tab { path: &path, t: et };
        ck.check_keys(et, &DROP, None);
        let flow = if et.t.contains_key(FLOW.name) {
            ck.opt(et, FLOW.name, |v| {
                let f = int(0, i64::MAX)(v)? as usize;
                match n_flows {
                    Some(n) if f >= n => Err(format!(
                        "there is no flow {f}: flows are numbered from 0 in the order of [[flow]] (or of the default flows), and this scenario has {n}"
                    )),
                    _ => Ok(f),
                }
            })
        } else {
            ck.missing(et, FLOW.name, "0");
            None
        };
        let n: Option<u64> = ck.need(et, &N, "100");
        if let (Some(f), Some(n)) = (flow, n) {
            out.push((f, n));
        }
    }
    out
}
