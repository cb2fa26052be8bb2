//! `[[udp]]`: a constant-bit-rate UDP sender and its receiver, as `iperf -u -b RATE -l LEN`
//! (iperf 2) with the receiving host's IPv4 reassembly in between.
//!
//! The per-packet work (the sender's datagrams and fragments, the receiving host's
//! reassembly, the server's counters and report intervals) is done by the flow's endpoints,
//! `transport/udp.rs`; this app configures them, starts them, and reports what they
//! counted: iperf 2's final report and its interval lines.

use super::Build;
use super::{endpoints, AppCx, AppId, ParseCx, ResultCx};
use crate::conn::{Conn, Ends};
use crate::engine::{secs, SimTime, SEC};
use crate::results::apps::{AppRow, Report};
use crate::results::table::{floats, ints, strs, Table};
use crate::results::AppTables;
use crate::schema::check::{Checker, Tab};
use crate::schema::{Key, Schema, Ty, REQUIRED};
pub use crate::transport::udp::UdpInterval;
use crate::transport::udp::{fragments, UdpConn, UdpReceiver, UdpSender, MTU};
use serde::Serialize;

/// A UDP constant-bit-rate flow.
#[derive(Clone, Debug, PartialEq)]
pub struct UdpSpec {
    pub from: String,
    pub to: String,
    pub start: SimTime,
    /// `None`: until the end of the run.
    pub stop: Option<SimTime>,
    /// UDP payload rate, bit/s (iperf's `-b`).
    pub rate: u64,
    /// UDP payload per datagram, bytes (iperf's `-l`).
    pub len: u32,
    /// The receiver's report interval (iperf's `-i`).
    pub interval: SimTime,
}

/// This app's scenario entry.
pub type Spec = UdpSpec;
/// This app as the app table holds it.
pub type App = Box<Udp>;
pub const DEFAULT: &str = "none";
pub const MEANING: &str = "UDP constant-bit-rate flows (iperf -u)";

const FROM: Key = Key {
    name: "from",
    ty: Ty::Host,
    default: REQUIRED,
    allowed: "",
    meaning: "the sending host",
};
const TO: Key = Key {
    name: "to",
    ty: Ty::Host,
    default: REQUIRED,
    allowed: "a host name other than `from`",
    meaning: "the receiving host",
};
const START: Key = Key {
    name: "start",
    ty: Ty::Time,
    default: "`\"0s\"`",
    allowed: "before `sim.duration`",
    meaning: "first datagram",
};
const STOP: Key = Key {
    name: "stop",
    ty: Ty::Time,
    default: "the end of the run",
    allowed: "after `start`",
    meaning: "no datagram is sent from then on",
};
const RATE: Key = Key {
    name: "rate",
    ty: Ty::Rate,
    default: REQUIRED,
    allowed: "",
    meaning: "the UDP payload rate (iperf's `-b`; iperf's `m` is 10⁶ bit/s, as `Mbit` here)",
};
const LEN: Key = Key {
    name: "len",
    ty: Ty::Bytes(1, 65_507),
    default: "`1470`",
    allowed: "",
    meaning: "UDP payload per datagram (iperf's `-l`; iperf's `45k` is 46,080 bytes, `\"45KiB\"` here); above 1472 the datagram is fragmented at the 1500-byte MTU",
};
const INTERVAL: Key = Key {
    name: "interval",
    ty: Ty::Interval,
    default: "`\"1s\"`",
    allowed: "greater than zero",
    meaning: "the receiver's report interval (iperf's `-i`)",
};

/// `[[udp]]`.
pub static KEYS: Schema = Schema {
    title: "[[udp]]",
    place: "[[udp]]",
    noun: "udp",
    about: "",
    keys: &[FROM, TO, START, STOP, RATE, LEN, INTERVAL],
    with: &[],
    variants: None,
};

/// Read every `[[udp]]`.
pub fn parse(ck: &mut Checker, root: Tab, table: &str, cx: &ParseCx) -> Option<Vec<UdpSpec>> {
    let duration = cx.duration;
    let tables = ck.array_of_tables(root, table).unwrap_or_default();
    let mut out = Vec::new();
    for (path, t) in &tables {
        let t = Tab { path, t };
        ck.check_keys(t, &KEYS, None);
        let (from, to) = endpoints(ck, t, &FROM, &TO);
        let start = super::start(ck, t, &START, duration).unwrap_or(0);
        let stop: Option<SimTime> = ck.get(t, &STOP);
        if let Some(s) = stop {
            if s <= start {
                ck.err(
                    &crate::schema::check::join(t.path, STOP.name),
                    t.t.get(STOP.name),
                    "stops at or before its start".to_string(),
                );
            }
        }
        let rate: Option<u64> = ck.need(t, &RATE, "\"800Mbit\"");
        let interval: SimTime = ck.get(t, &INTERVAL).unwrap_or(SEC);
        ck.check_samples(t, INTERVAL.name, interval, duration);
        let len: u32 = ck.get(t, &LEN).unwrap_or(1470);
        if let (Some(r), Some(d)) = (rate, duration) {
            // Datagrams per second, each in as many IP packets as it has fragments.
            let mut frags = Vec::new();
            fragments(len, MTU, &mut frags);
            let per_s = r as f64 / (8.0 * len as f64) * frags.len() as f64;
            let time = stop.unwrap_or(d).min(d).saturating_sub(start);
            let how = format!(
                "{} in datagrams of len = {len} B{}",
                crate::schema::units::format_rate(r),
                match frags.len() {
                    1 => String::new(),
                    n => format!(", {n} fragments each"),
                }
            );
            ck.check_app_packets(t, RATE.name, &how, per_s, time, cx.max_app_packets);
        }
        out.push(UdpSpec {
            from: from.unwrap_or_default(),
            to: to.unwrap_or_default(),
            start,
            stop,
            rate: rate.unwrap_or(1),
            len,
            interval,
        });
    }
    Some(out)
}

/// A UDP flow's app: its endpoints hold the state.
pub struct Udp {
    pub id: AppId,
    /// The flow's connection slot.
    pub conn: u32,
    pub spec: UdpSpec,
}

/// iperf 2's line for an interval: `[  3]  0.0- 1.0 sec  95.4 MBytes   800 Mbits/sec
/// 0.012 ms    0/ 2170 (0%)`.
pub fn iperf_line(i: &UdpInterval) -> String {
    let mbytes = i.bytes as f64 / (1024.0 * 1024.0);
    let pct = if i.total > 0 {
        100.0 * i.lost as f64 / i.total as f64
    } else {
        0.0
    };
    format!(
        "[  3] {:4.1}-{:4.1} sec  {:5.1} MBytes  {:4.0} Mbits/sec  {:6.3} ms {:4}/{:5} ({}%)",
        i.start_s,
        i.end_s,
        mbytes,
        i.mbps,
        i.jitter_ms,
        i.lost,
        i.total,
        g2(pct)
    )
}

/// C's `%.2g`: two significant digits, trailing zeros dropped, an exponent from 100 up.
fn g2(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    let e = x.abs().log10().floor() as i32;
    if e >= 2 {
        let m = x / 10f64.powi(e);
        let m = format!("{m:.1}");
        let m = m.trim_end_matches('0').trim_end_matches('.');
        return format!("{m}e+{e:02}");
    }
    let digits = (1 - e).max(0) as usize;
    let s = format!("{x:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').into()
    } else {
        s
    }
}

impl super::App for Udp {
    fn start(&mut self, cx: &mut AppCx) {
        cx.open(self.conn);
    }

    fn on_event(&mut self, _tag: u32, _cx: &mut AppCx) {}

    fn declare(t: &mut AppTables) {
        t.declare::<UdpResult>();
    }

    fn tables(&self, cx: &ResultCx, out: &mut AppTables) {
        let Some(Ends::Udp(u)) = cx.conns.get(self.conn as usize).and_then(Conn::ends) else {
            return;
        };
        let (sent, r) = (u.sender.sent, &u.receiver);
        let dur = cx.now.saturating_sub(self.spec.start).max(1);
        // iperf 2's final report counts against the last datagram the client sent (its
        // closing datagrams carry that number).
        let lost = sent.saturating_sub(r.total_received);
        out.push(UdpResult {
            from: self.spec.from.clone(),
            to: self.spec.to.clone(),
            rate_bps: self.spec.rate,
            len: self.spec.len,
            fragments_per_datagram: {
                let mut f = Vec::new();
                fragments(self.spec.len, MTU, &mut f);
                f.len() as u32
            },
            sent,
            received: r.total_received,
            lost,
            loss_pct: if sent > 0 {
                100.0 * lost as f64 / sent as f64
            } else {
                0.0
            },
            goodput_bps: r.total.bytes as f64 * 8.0 / secs(dur),
            jitter_ms: r.jitter * 1e3,
            reassembly_expired: r.reasm.expired,
            reassembly_mem_drops: r.reasm.dropped_fragments,
            intervals: r.intervals.clone(),
            report: r.intervals.iter().map(iperf_line).collect(),
        });
    }
}

/// A UDP constant-bit-rate flow as iperf 2's server reports it.
#[derive(Clone, Debug, Serialize)]
pub struct UdpResult {
    pub from: String,
    pub to: String,
    pub rate_bps: u64,
    /// UDP payload per datagram, bytes.
    pub len: u32,
    pub fragments_per_datagram: u32,
    pub sent: u64,
    pub received: u64,
    /// Datagrams missing from the receiver's sequence (iperf's "lost").
    pub lost: u64,
    pub loss_pct: f64,
    /// UDP payload received, bit/s.
    pub goodput_bps: f64,
    pub jitter_ms: f64,
    /// Reassembly queues that expired incomplete, and fragments dropped because the
    /// reassembly memory was full.
    pub reassembly_expired: u64,
    pub reassembly_mem_drops: u64,
    pub intervals: Vec<UdpInterval>,
    /// The intervals as iperf 2 prints them.
    pub report: Vec<String>,
}

impl AppRow for UdpResult {
    const REPORT: Report = Report {
        key: "udp",
        table: "udp",
        always: false,
        rank: 20,
        table_rank: 20,
    };
    fn columns(u: &[UdpResult], t: Table) -> Table {
        t.col("from", strs(u, |x| &x.from))
            .col("to", strs(u, |x| &x.to))
            .col("rate_bps", ints(u, |x| x.rate_bps))
            .col("len_bytes", ints(u, |x| x.len as u64))
            .col(
                "fragments_per_datagram",
                ints(u, |x| x.fragments_per_datagram as u64),
            )
            .col("sent", ints(u, |x| x.sent))
            .col("received", ints(u, |x| x.received))
            .col("lost", ints(u, |x| x.lost))
            .col("loss_pct", floats(u, |x| x.loss_pct))
            .col("goodput_bps", floats(u, |x| x.goodput_bps))
            .col("jitter_s", floats(u, |x| x.jitter_ms / 1e3))
            .col("reassembly_expired", ints(u, |x| x.reassembly_expired))
            .col("reassembly_mem_drops", ints(u, |x| x.reassembly_mem_drops))
    }
    fn human(&self, s: &mut String) {
        use std::fmt::Write;
        let u = self;
        let _ = writeln!(
            s,
            "\nudp {}→{} ({} Mbit/s of {}-byte datagrams, {} fragments each): {}/{} datagrams lost ({:.2}%), {:.1} Mbit/s received, jitter {:.3} ms; reassembly: {} expired, {} fragments dropped for memory",
            u.from,
            u.to,
            u.rate_bps as f64 / 1e6,
            u.len,
            u.fragments_per_datagram,
            u.lost,
            u.sent,
            u.loss_pct,
            u.goodput_bps / 1e6,
            u.jitter_ms,
            u.reassembly_expired,
            u.reassembly_mem_drops
        );
        for line in &u.report {
            let _ = writeln!(s, "{line}");
        }
    }
}

/// One app and one connection per `[[udp]]`.
pub fn build(specs: &[UdpSpec], w: &mut dyn Build) -> Result<(), String> {
    for (i, s) in specs.iter().enumerate() {
        let id = w.next_app();
        let (from, to) = (w.host(&s.from)?, w.host(&s.to)?);
        if !w.reaches(from, to, 0) {
            return Err(format!(
                "udp.{i} ({} → {}): no route from one to the other (hosts do not forward; is a link missing?)",
                s.from, s.to
            ));
        }
        let conn = w.next_conn();
        let udp = UdpConn {
            sender: UdpSender::new(conn, id, (from, to), (s.start, s.stop), s.len, s.rate),
            receiver: UdpReceiver::new(s.len, s.start, s.interval),
        };
        w.add_conn(Conn::new(Ends::Udp(udp)), from, to, id);
        w.push_app(super::AnyApp::Udp(Box::new(Udp {
            id,
            conn,
            spec: s.clone(),
        })));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loss_is_printed_as_c_prints_2g() {
        assert_eq!(g2(0.0), "0");
        assert_eq!(g2(0.046), "0.046");
        assert_eq!(g2(1.25), "1.2");
        assert_eq!(g2(12.0), "12");
        assert_eq!(g2(100.0), "1e+02");
    }
}
