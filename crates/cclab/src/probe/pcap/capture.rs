//! The capture points of one run (part of `probe::pcap`): which hosts and links are
//! captured, one [`PcapWriter`] each, fed by the network's `Tap` hooks, and each point's
//! counters ([`CaptureStats`]), among them duplicate ACKs by Wireshark's
//! `tcp.analysis.duplicate_ack` rule (RFC 5681 §2). A host point holds what the host
//! sends (as tcpdump on the host sees it) and receives; a link point what leaves its port.

use super::{ConnPorts, PcapWriter, ETH_HDR};
use crate::engine::SimTime;
use crate::net::{Network, NodeId, NodeKind, PortId};
use crate::packet::{Packet, PktKind, ACK, FIN, RST, SYN};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Counters of one capture point, kept while writing (independent of any reader).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CaptureStats {
    /// Frames written, and their original (wire) bytes including the Ethernet header.
    pub packets: u64,
    pub bytes: u64,
    /// TCP segments by direction: from the initiator (data sender), from the listener.
    pub tcp_from_client: u64,
    pub tcp_from_server: u64,
    /// Segments the sender marked as retransmissions (data and SYN).
    pub retrans: u64,
    /// Duplicate ACKs seen here: segments with ACK and without data, SYN, FIN or RST that
    /// repeat the ACK number and window of the previous ACK of their direction (Wireshark's
    /// `tcp.analysis.duplicate_ack` rule; RFC 5681 §2 also asks that the data sender have
    /// data outstanding, which holds for every such ACK of a bulk transfer in flight).
    pub dupacks: u64,
    /// Packets carrying ECT(0) or ECT(1), and CE.
    pub ect: u64,
    pub ce: u64,
    /// Non-SYN TCP segments with ECE, and with CWR.
    pub ece: u64,
    pub cwr: u64,
}

/// Per-direction state for the duplicate-ACK tally.
#[derive(Clone, Copy, Debug, Default)]
struct DirTally {
    last_ack: u64,
    last_win: u64,
    acked: bool,
}

/// What a capture point listens to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TapAt {
    /// Everything a host sends and receives.
    Host(NodeId),
    /// Everything leaving a port onto its link.
    Port(PortId),
}

struct Point {
    name: String,
    tap: TapAt,
    path: Option<PathBuf>,
    w: PcapWriter<Box<dyn Write + Send>>,
    stats: CaptureStats,
    tally: Vec<[DirTally; 2]>,
    failed: bool,
    /// Records dated after the time they were handed over (a packet put on a direct port's
    /// wire behind others starts later), earliest first, ties in the order handed over;
    /// each is written once the run reaches its time, so the file stays in time order.
    held: BinaryHeap<Reverse<Held>>,
    /// Records handed over so far (the tie-break of `held`).
    seq: u64,
}

/// A record waiting for its time: (time, order handed over), the packet.
struct Held(SimTime, u64, Box<Packet>);

impl PartialEq for Held {
    fn eq(&self, o: &Self) -> bool {
        (self.0, self.1) == (o.0, o.1)
    }
}
impl Eq for Held {}
impl PartialOrd for Held {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Held {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.0, self.1).cmp(&(o.0, o.1))
    }
}

impl Point {
    /// Write what is held for `now` or earlier, in time order.
    #[inline]
    fn release(&mut self, now: SimTime, first_error: &mut Option<String>) {
        while self.held.peek().is_some_and(|h| h.0 .0 <= now) {
            let Reverse(Held(t, _, p)) = self.held.pop().expect("peeked");
            self.record(t, &p, first_error);
        }
    }

    /// Packet `p`, handed over at `now`, is dated `at` (>= `now`).
    #[inline]
    fn take(&mut self, now: SimTime, at: SimTime, p: &Packet, first_error: &mut Option<String>) {
        self.release(now, first_error);
        self.seq += 1;
        if at > now {
            self.held
                .push(Reverse(Held(at, self.seq, Box::new(p.clone()))));
        } else {
            self.record(now, p, first_error);
        }
    }

    fn record(&mut self, t: SimTime, p: &Packet, first_error: &mut Option<String>) {
        if self.failed {
            return;
        }
        if let Err(e) = self.w.write(t, p) {
            self.failed = true;
            first_error.get_or_insert_with(|| self.describe_error(&e));
            return;
        }
        let st = &mut self.stats;
        st.packets += 1;
        st.bytes += ETH_HDR as u64 + p.size as u64;
        if p.ecn == crate::packet::CE {
            st.ce += 1;
        } else if p.ecn != crate::packet::NOT_ECT {
            st.ect += 1;
        }
        if p.kind != PktKind::Tcp {
            return;
        }
        if p.from_client {
            st.tcp_from_client += 1;
        } else {
            st.tcp_from_server += 1;
        }
        st.retrans += p.retrans as u64;
        if p.flags & SYN == 0 {
            st.ece += (p.flags & crate::packet::ECE != 0) as u64;
            st.cwr += (p.flags & crate::packet::CWR != 0) as u64;
        }
        let c = p.conn as usize;
        if self.tally.len() <= c {
            self.tally.resize(c + 1, [DirTally::default(); 2]);
        }
        let me = &mut self.tally[c][p.from_client as usize];
        if p.flags & ACK != 0 {
            if p.payload == 0
                && p.flags & (SYN | FIN | RST) == 0
                && me.acked
                && p.ack == me.last_ack
                && p.rwnd == me.last_win
            {
                st.dupacks += 1;
            }
            me.last_ack = p.ack;
            me.last_win = p.rwnd;
            me.acked = true;
        }
    }

    fn describe_error(&self, e: &io::Error) -> String {
        match &self.path {
            Some(p) => format!("pcap {}: {e}", p.display()),
            None => format!("pcap {}: {e}", self.name),
        }
    }
}

const NONE: u32 = u32::MAX;

/// The pcap files of one run. The simulator holds it as `Option<Box<Capture>>` and calls
/// [`Capture::on_tx`] / [`Capture::on_rx`] on every hop; those cost two table look-ups
/// when the packet is not captured. Write errors do not stop the run: the first one is
/// kept, the failing file is no longer written, and [`Capture::finish`] reports it.
pub struct Capture {
    points: Vec<Point>,
    /// For each node / port, the capture point that taps it.
    by_node: Vec<u32>,
    by_port: Vec<u32>,
    /// Node of each port.
    port_node: Vec<NodeId>,
    /// Each connection's ports, by connection index (`None`: never set).
    conns: Vec<Option<ConnPorts>>,
    error: Option<String>,
}

impl Capture {
    /// A capture of `net` with no points yet.
    pub fn new(net: &Network) -> Capture {
        Capture {
            points: Vec::new(),
            by_node: vec![NONE; net.nodes.len()],
            by_port: vec![NONE; net.ports().len()],
            port_node: net.ports().iter().map(|p| p.node).collect(),
            conns: Vec::new(),
            error: None,
        }
    }

    /// Capture at `name` — a host (what it sends and receives) or a link (what leaves its
    /// port) — into `w`, storing at most `snaplen` bytes per frame.
    pub fn add(
        &mut self,
        net: &Network,
        name: &str,
        w: Box<dyn Write + Send>,
        snaplen: u32,
    ) -> Result<(), String> {
        self.add_point(net, name, w, snaplen, None)
    }

    fn add_point(
        &mut self,
        net: &Network,
        name: &str,
        w: Box<dyn Write + Send>,
        snaplen: u32,
        path: Option<PathBuf>,
    ) -> Result<(), String> {
        let tap = Self::resolve(net, name)?;
        let idx = self.points.len() as u32;
        let slot = match tap {
            TapAt::Host(n) => &mut self.by_node[n as usize],
            TapAt::Port(p) => &mut self.by_port[p as usize],
        };
        if *slot != NONE {
            return Err(format!("pcap: '{name}' is listed twice"));
        }
        let mut w = PcapWriter::new(w, snaplen).map_err(|e| match &path {
            Some(p) => format!("pcap {}: {e}", p.display()),
            None => format!("pcap {name}: {e}"),
        })?;
        for (c, cp) in self.conns.iter().enumerate() {
            if let Some(cp) = cp {
                w.set_conn(c as u32, *cp);
            }
        }
        *slot = idx;
        self.points.push(Point {
            name: name.to_string(),
            tap,
            path,
            w,
            stats: CaptureStats::default(),
            tally: Vec::new(),
            failed: false,
            held: BinaryHeap::new(),
            seq: 0,
        });
        Ok(())
    }

    /// What `name` denotes in `net`: a host, else a link; switches are refused (capture
    /// one of their links instead).
    pub fn resolve(net: &Network, name: &str) -> Result<TapAt, String> {
        if let Some(n) = net.node_by_name(name) {
            if net.nodes[n as usize].kind == NodeKind::Host {
                return Ok(TapAt::Host(n));
            }
            return Err(format!(
                "pcap: '{name}' is a switch; capture a host or one of its links instead"
            ));
        }
        if let Some(p) = net.port_by_name(name) {
            return Ok(TapAt::Port(p));
        }
        let hosts = net
            .nodes
            .iter()
            .filter(|n| n.kind == NodeKind::Host)
            .map(|n| n.name.as_str());
        let links = net.ports().iter().map(|p| p.name.as_str());
        Err(format!(
            "pcap: no host or link named '{name}' (hosts: {}; links: {})",
            hosts.collect::<Vec<_>>().join(", "),
            links.collect::<Vec<_>>().join(", ")
        ))
    }

    /// One file `<dir>/<name>.pcap` per name (hosts or links), `dir` created if missing;
    /// files are buffered.
    pub fn open(
        net: &Network,
        names: &[String],
        dir: &Path,
        snaplen: u32,
    ) -> Result<Capture, String> {
        // Check every name before creating anything.
        for (i, name) in names.iter().enumerate() {
            Self::resolve(net, name)?;
            if names[..i].contains(name) {
                return Err(format!("pcap: '{name}' is listed twice"));
            }
        }
        if !names.is_empty() {
            std::fs::create_dir_all(dir).map_err(|e| format!("pcap {}: {e}", dir.display()))?;
        }
        let at: Vec<(String, PathBuf)> = names
            .iter()
            .map(|n| (n.clone(), dir.join(format!("{n}.pcap"))))
            .collect();
        Self::open_at(net, &at, snaplen)
    }

    /// One file per (name, path): the host or link `name` captured into `path` (a
    /// temporary name an output folder renames when the run is complete); buffered.
    pub fn open_at(
        net: &Network,
        at: &[(String, PathBuf)],
        snaplen: u32,
    ) -> Result<Capture, String> {
        let mut c = Capture::new(net);
        // Check every name before creating any file.
        for (i, (name, _)) in at.iter().enumerate() {
            Self::resolve(net, name)?;
            if at[..i].iter().any(|(n, _)| n == name) {
                return Err(format!("pcap: '{name}' is listed twice"));
            }
        }
        for (name, path) in at {
            let f =
                std::fs::File::create(path).map_err(|e| format!("pcap {}: {e}", path.display()))?;
            let w = Box::new(io::BufWriter::with_capacity(1 << 16, f));
            c.add_point(net, name, w, snaplen, Some(path.clone()))?;
        }
        Ok(c)
    }

    /// Set the ports and MSS of connection `conn` in every file (present and future).
    pub fn set_conn(&mut self, conn: u32, ports: ConnPorts) {
        let i = conn as usize;
        if self.conns.len() <= i {
            self.conns.resize(i + 1, None);
        }
        self.conns[i] = Some(ports);
        for p in &mut self.points {
            p.w.set_conn(conn, ports);
        }
    }

    /// Is anything captured?
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// Packet `p` starts serialising on `port` at `at` (before the link's loss), handed
    /// over at `now` (`at` >= `now`).
    #[inline]
    pub fn on_tx(&mut self, now: SimTime, at: SimTime, port: PortId, p: &Packet) {
        let a = self.by_port[port as usize];
        let b = self.by_node[self.port_node[port as usize] as usize];
        if a != NONE {
            self.points[a as usize].take(now, at, p, &mut self.error);
        }
        if b != NONE {
            self.points[b as usize].take(now, at, p, &mut self.error);
        }
    }

    /// Packet `p` arrives at `node` at `now`; recorded if `node` is its destination.
    #[inline]
    pub fn on_rx(&mut self, now: SimTime, node: NodeId, p: &Packet) {
        let b = self.by_node[node as usize];
        if b != NONE && p.dst == node {
            self.points[b as usize].take(now, now, p, &mut self.error);
        }
    }

    /// The counters of the point named `name`.
    pub fn stats(&self, name: &str) -> Option<&CaptureStats> {
        self.points
            .iter()
            .find(|p| p.name == name)
            .map(|p| &p.stats)
    }

    /// (name, tap, file, counters) of every point, in the order added.
    pub fn points(&self) -> impl Iterator<Item = (&str, TapAt, Option<&Path>, &CaptureStats)> {
        self.points
            .iter()
            .map(|p| (p.name.as_str(), p.tap, p.path.as_deref(), &p.stats))
    }

    /// Flush every file. Returns each point's name and counters, or the first write error.
    pub fn finish(self) -> Result<Vec<(String, CaptureStats)>, String> {
        self.finish_at(SimTime::MAX)
    }

    /// [`Capture::finish`] for a run that ended at `end`: what would start later (queued
    /// behind others at a direct port) was never sent and is not written.
    pub fn finish_at(self, end: SimTime) -> Result<Vec<(String, CaptureStats)>, String> {
        let mut err = self.error;
        let mut out = Vec::with_capacity(self.points.len());
        for mut p in self.points {
            p.release(end, &mut err);
            if !p.failed {
                if let Err(e) = p.w.flush() {
                    err.get_or_insert_with(|| p.describe_error(&e));
                }
            }
            out.push((p.name, p.stats));
        }
        match err {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }
}

impl crate::net::Tap for Capture {
    #[inline]
    fn on_tx(&mut self, now: SimTime, at: SimTime, port: PortId, p: &Packet) {
        Capture::on_tx(self, now, at, port, p)
    }
    #[inline]
    fn on_rx(&mut self, now: SimTime, node: NodeId, p: &Packet) {
        Capture::on_rx(self, now, node, p)
    }
}
