//! The driver: a script's events against one cclab `Sender`, in virtual time.
//!
//! As packetdrill runs them (google/packetdrill `run.c`, `run_packet.c`, `run_system_call.c`):
//! - A relative time counts from when the previous event ended (the live clock), except
//!   that consecutive inbound packets count from the previous one's script time
//!   (`adjust_relative_event_times`). Before each event the sender's timers run up to its
//!   time; inbound packets (`<`) are handed to the sender at their times, system calls
//!   are made at theirs.
//! - Outbound packets (`>`) are matched in order against what the sender sent (packets the
//!   script does not list before the end are not errors). An expected payload longer than
//!   one sent packet is matched by consecutive packets (`verify_packet_fragments`). Each
//!   must come within [t − tol, t_end + tol], tol the larger of `--tolerance_usecs`
//!   (4 ms) and `--tolerance_percent` (12.5 %) of the time since the previous event
//!   (`verify_time`). Flags, sequence and ACK numbers (relative to each side's ISN, 0
//!   here), the IP ECN field when given, and the options (unless `<...>`) are compared;
//!   an outbound TS val is not compared (packetdrill maps it on first sight).
//! - `%{ }%` blocks read a `TCP_INFO` snapshot taken when the event runs; packetdrill runs
//!   the Python after the script, so a failed assertion is reported only if the packets
//!   all matched.
//! - An inbound `win` is scaled by the peer's window scale once both ends offered it; a
//!   SYN's window is not.

use super::env::Conf;
use super::parse::{Action, Arg, Ecn, Event, PacketSpec, Script, Syscall, TcpOpt, When};
use super::py;
use super::Verdict;
use crate::engine::{SimTime, MS, US};
use crate::packet::*;
use crate::tcp::sender::{SndState, SynOptions};
use crate::tcp::{Addr, Sender};
use crate::transport::{Io, TimerKind};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::Arc;

/// Why a run stopped early.
enum Stop {
    Fail(String),
    Na(String),
}

struct Drv {
    conf: Conf,
    snd: Option<Sender>,
    /// The live clock.
    now: SimTime,
    timers: BinaryHeap<Reverse<(SimTime, u64, u8)>>,
    tseq: u64,
    /// Packets the sender sent, with their departure times, not yet matched.
    out: VecDeque<(SimTime, Packet)>,
    /// Bytes still in the host's qdisc (fq holds a paced packet until its departure time),
    /// with their departure times: what TCP small queues count (`sk_wmem_alloc`).
    held: Vec<(SimTime, u64)>,
    py: py::Env,
    assert_fail: Option<(usize, String)>,
    /// First outbound TS val seen: (script value, live value).
    ts_map: Option<(u64, SimTime)>,
    /// Script time of the previous event, and whether it was an inbound packet.
    last: Option<(i64, bool)>,
}

const KINDS: [TimerKind; 4] = [
    TimerKind::Rto,
    TimerKind::DelAck,
    TimerKind::Pace,
    TimerKind::Tsq,
];

fn secs(t: SimTime) -> f64 {
    t as f64 / 1e12
}

pub fn run(script: &Script, mut conf: Conf) -> Verdict {
    for (k, v) in &script.options {
        if let Err(f) = conf.option(k, v.as_deref()) {
            return Verdict::NotApplicable {
                line: 1,
                feature: f,
            };
        }
    }
    // Set aside what cannot run before running anything.
    for e in &script.events {
        if let Some(f) = unsupported(e) {
            return Verdict::NotApplicable {
                line: e.line,
                feature: f,
            };
        }
    }
    let mut d = Drv {
        conf,
        snd: None,
        now: 0,
        timers: BinaryHeap::new(),
        tseq: 0,
        out: VecDeque::new(),
        held: Vec::new(),
        py: py::Env::default(),
        assert_fail: None,
        ts_map: None,
        last: None,
    };
    for e in &script.events {
        if let Err(s) = d.event(e) {
            return match s {
                Stop::Fail(msg) => Verdict::Fail { line: e.line, msg },
                Stop::Na(feature) => Verdict::NotApplicable {
                    line: e.line,
                    feature,
                },
            };
        }
    }
    match d.assert_fail {
        Some((line, msg)) => Verdict::Fail { line, msg },
        None => Verdict::Pass,
    }
}

/// A feature of the event that the runner does not model, named.
fn unsupported(e: &Event) -> Option<String> {
    match &e.action {
        Action::Unsupported(f) => Some(f.clone()),
        Action::Syscall(s) => match s.name.as_str() {
            "socket" | "bind" | "listen" | "accept" | "connect" | "write" | "close" => None,
            "setsockopt" => {
                let opt = match s.args.get(2) {
                    Some(Arg::Word(w)) => w.as_str(),
                    _ => "?",
                };
                match opt {
                    "SO_REUSEADDR" | "SO_REUSEPORT" | "SO_SNDBUF" | "IP_TOS"
                    | "IP_MTU_DISCOVER" => None,
                    _ => Some(format!("setsockopt {opt}")),
                }
            }
            n => Some(format!("system call {n}()")),
        },
        Action::Shell(t) => Conf::new().shell(t).err(),
        _ => None,
    }
}

fn flag_bits(s: &str) -> u8 {
    s.chars().fold(0, |f, c| {
        f | match c {
            'S' => SYN,
            'F' => FIN,
            'R' => RST,
            'P' => PSH,
            '.' => ACK,
            'E' => ECE,
            'W' => CWR,
            _ => 0,
        }
    })
}

fn flag_str(f: u8) -> String {
    let mut s = String::new();
    for (b, c) in [
        (SYN, 'S'),
        (FIN, 'F'),
        (RST, 'R'),
        (PSH, 'P'),
        (ACK, '.'),
        (ECE, 'E'),
        (CWR, 'W'),
    ] {
        if f & b != 0 {
            s.push(c);
        }
    }
    if s.is_empty() {
        s.push('-');
    }
    s
}

fn opts_str(o: &[TcpOpt]) -> String {
    let v: Vec<String> = o
        .iter()
        .map(|o| match o {
            TcpOpt::Nop => "nop".into(),
            TcpOpt::Eol => "eol".into(),
            TcpOpt::Mss(m) => format!("mss {m}"),
            TcpOpt::Wscale(w) => format!("wscale {w}"),
            TcpOpt::SackOk => "sackOK".into(),
            TcpOpt::Sack(b) => {
                let b: Vec<String> = b.iter().map(|(a, b)| format!("{a}:{b}")).collect();
                format!("sack {}", b.join(" "))
            }
            TcpOpt::Ts { val, ecr } => format!("TS val {val} ecr {ecr}"),
        })
        .collect();
    if v.is_empty() {
        String::new()
    } else {
        format!(" <{}>", v.join(","))
    }
}

fn ecn_str(e: u8) -> &'static str {
    match e {
        ECT0 => "[ect0] ",
        ECT1 => "[ect1] ",
        CE => "[ce] ",
        _ => "",
    }
}

fn spec_str(p: &PacketSpec) -> String {
    let ecn = match p.ecn {
        Some(Ecn::Ect0) => "[ect0] ",
        Some(Ecn::Ect1) => "[ect1] ",
        Some(Ecn::Ce) => "[ce] ",
        Some(Ecn::NoEcn) => "[noecn] ",
        Some(Ecn::Ect01) => "[ect01] ",
        None => "",
    };
    let mut s = format!("> {ecn}{} {}:{}({})", p.flags, p.start, p.end, p.len);
    if let Some(a) = p.ack {
        s += &format!(" ack {a}");
    }
    if let Some(w) = p.win {
        s += &format!(" win {w}");
    }
    match &p.options {
        None => s += " <...>",
        Some(o) => s += &opts_str(o),
    }
    s
}

impl Drv {
    fn snd(&mut self) -> Result<&mut Sender, Stop> {
        self.snd
            .as_mut()
            .ok_or_else(|| Stop::Fail("no connection: the script has not opened one".into()))
    }

    /// Hand the sender one input at the live clock; collect what it sends and arms.
    fn call(&mut self, f: impl FnOnce(&mut Sender, &mut Io)) {
        let Some(s) = self.snd.as_mut() else { return };
        let mut io = Io::new(self.now);
        let now = self.now;
        self.held.retain(|&(t, _)| t > now);
        io.below = self.held.iter().map(|&(_, b)| b).sum();
        f(s, &mut io);
        for p in io.tx.drain(..) {
            // A paced packet leaves the fq qdisc at its departure time (EDT).
            let t = p.edt.max(self.now);
            if t > self.now {
                self.held.push((t, p.size as u64));
            }
            self.out.push_back((t, p));
        }
        if io.tsq_throttled {
            // The test device takes each packet as it leaves the qdisc (packetdrill reads
            // the tun device), freeing its bytes: TCP small queues wake then (`tcp_wfree`),
            // at once for bytes that already left.
            let at = self.held.iter().map(|&(t, _)| t).min().unwrap_or(self.now);
            self.tseq += 1;
            self.timers.push(Reverse((at, self.tseq, 3)));
        }
        for (t, k) in io.timers.drain(..) {
            let i = KINDS.iter().position(|x| *x == k).unwrap_or(0) as u8;
            self.tseq += 1;
            self.timers.push(Reverse((t, self.tseq, i)));
        }
    }

    /// Run the timers due up to `t`; the clock ends at `t` (or later, if it was).
    fn advance(&mut self, t: SimTime) {
        while let Some(&Reverse((at, _, k))) = self.timers.peek() {
            if at > t {
                break;
            }
            self.timers.pop();
            self.now = self.now.max(at);
            self.call(|s, io| s.on_timer(KINDS[k as usize], io));
        }
        self.now = self.now.max(t);
    }

    /// Fire the next timer if it is due by `deadline`; false if none is.
    fn fire_next(&mut self, deadline: SimTime) -> bool {
        match self.timers.peek() {
            Some(&Reverse((at, _, _))) if at <= deadline => {
                self.advance(at);
                true
            }
            _ => false,
        }
    }

    fn tolerance(&self, t: i64) -> i64 {
        let mut tol = self.conf.tol_us;
        if let Some((last, _)) = self.last {
            let dynamic = (self.conf.tol_pct / 100.0 * (t - last) as f64) as i64;
            tol = tol.max(dynamic);
        }
        tol
    }

    fn event(&mut self, e: &Event) -> Result<(), Stop> {
        let inbound = matches!(&e.action, Action::Packet(p) if p.inbound);
        let now_us = (self.now / US) as i64;
        let Some(when) = e.when else {
            // The init command before the first event.
            if let Action::Shell(t) = &e.action {
                self.conf.shell(t).map_err(Stop::Na)?;
            }
            return Ok(());
        };
        let offset = match self.last {
            Some((t, true)) if inbound => t,
            _ => now_us,
        };
        let (t, t_end, any) = match when {
            When::Abs(a) => (a, a, false),
            When::AbsRange(a, b) => (a, b, false),
            When::Rel(a) => (offset + a, offset + a, false),
            When::RelRange(a, b) => (offset + a, offset + b, false),
            When::Any => (now_us, i64::MAX / 4, true),
        };
        let tol = self.tolerance(t);
        let outbound = matches!(&e.action, Action::Packet(p) if !p.inbound);
        if !outbound {
            // Wait for the event's time; if the clock is already past it, the event is
            // late (`wait_for_event` → `check_event_time`).
            if t > now_us {
                self.advance(t as u64 * US);
            } else if !any && now_us > t_end + tol {
                return Err(Stop::Fail(format!(
                    "timing error: expected the event at {:.6} s but it happened at {:.6} s; tolerance {:.6} s",
                    t as f64 / 1e6,
                    now_us as f64 / 1e6,
                    tol as f64 / 1e6
                )));
            }
        }
        match &e.action {
            Action::Packet(p) if p.inbound => self.inbound(p)?,
            Action::Packet(p) => self.outbound(p, t, t_end, tol, any)?,
            Action::Syscall(s) => self.syscall(s)?,
            Action::Shell(txt) => {
                let before = (self.conf.cfg.host, self.conf.cfg.clone());
                self.conf.shell(txt).map_err(Stop::Na)?;
                if self.snd.is_some()
                    && (before.0 != self.conf.cfg.host || before.1 != self.conf.cfg)
                {
                    return Err(Stop::Na(format!(
                        "configuration changed after the socket was made: '{}'",
                        txt.trim()
                    )));
                }
            }
            Action::Code(src) => self.code(e.line, src)?,
            Action::Unsupported(f) => return Err(Stop::Na(f.clone())),
        }
        self.last = Some((t, inbound));
        Ok(())
    }

    fn inbound(&mut self, sp: &PacketSpec) -> Result<(), Stop> {
        let flags = flag_bits(&sp.flags);
        let mut p = Packet::blank();
        p.flags = flags;
        p.seq = sp.start;
        p.ack = sp.ack.unwrap_or(0);
        p.payload = sp.len as u32;
        p.ecn = match sp.ecn {
            Some(Ecn::Ect0) => ECT0,
            Some(Ecn::Ect1) => ECT1,
            Some(Ecn::Ce) => CE,
            _ => NOT_ECT,
        };
        p.from_client = false;
        let mut syn = SynOptions::default();
        for o in sp.options.iter().flatten() {
            match o {
                TcpOpt::Mss(m) => syn.mss = Some(*m),
                TcpOpt::Wscale(w) => syn.wscale = Some((*w).min(14) as u8),
                TcpOpt::SackOk => syn.sack_ok = true,
                TcpOpt::Sack(b) => {
                    if b.len() > MAX_SACK {
                        return Err(Stop::Na(format!("more than {MAX_SACK} SACK blocks")));
                    }
                    for (i, &(a, z)) in b.iter().enumerate() {
                        p.sack[i] = (a, z);
                    }
                    p.nsack = b.len() as u8;
                }
                TcpOpt::Ts { val, ecr } => {
                    syn.ts = Some(*val);
                    p.tsval = *val;
                    // The script's ecr is in its own TS val space: map it to ours.
                    p.tsecr = match self.ts_map {
                        Some((s0, a0)) if *ecr >= s0 => a0 + (*ecr - s0) * MS,
                        _ => 0,
                    };
                }
                TcpOpt::Nop | TcpOpt::Eol => {}
            }
        }
        let win = sp.win.unwrap_or(0);
        let s = self.snd()?;
        p.rwnd = if flags & SYN != 0 {
            win
        } else {
            win << s.handshake().peer_wscale.unwrap_or(0)
        };
        let established = s.state == SndState::Established;
        if sp.len > 0 && (established || flags & SYN != 0) {
            return Err(Stop::Na("inbound data at the data sender".into()));
        }
        if flags & SYN != 0 {
            s.set_peer_syn_options(syn);
        }
        self.call(|s, io| s.on_packet(&p, io));
        Ok(())
    }

    /// The options the sender put on `p` (Linux `tcp_options_write` order).
    fn actual_options(&self, p: &Packet) -> Vec<TcpOpt> {
        let Some(s) = self.snd.as_ref() else {
            return vec![];
        };
        let hs = s.handshake();
        let ts = TcpOpt::Ts {
            val: (p.tsval / MS),
            ecr: (p.tsecr / MS),
        };
        let mut v = Vec::new();
        if p.flags & SYN != 0 {
            let synack = p.flags & ACK != 0;
            let (sack, tsok, ws) = if synack {
                (s.config().sack, hs.ts, hs.peer_wscale.is_some())
            } else {
                (s.config().sack, s.config().timestamps, true)
            };
            v.push(TcpOpt::Mss(hs.our_mss));
            if tsok {
                if sack {
                    v.push(TcpOpt::SackOk);
                } else {
                    v.extend([TcpOpt::Nop, TcpOpt::Nop]);
                }
                v.push(ts);
            } else if sack {
                v.extend([TcpOpt::Nop, TcpOpt::Nop, TcpOpt::SackOk]);
            }
            if ws {
                v.extend([TcpOpt::Nop, TcpOpt::Wscale(hs.our_wscale as u32)]);
            }
        } else if hs.ts {
            v.extend([TcpOpt::Nop, TcpOpt::Nop, ts]);
        }
        v
    }

    fn outbound(
        &mut self,
        sp: &PacketSpec,
        t: i64,
        t_end: i64,
        tol: i64,
        any: bool,
    ) -> Result<(), Stop> {
        let deadline = if any {
            SimTime::MAX / 4
        } else {
            (t_end + tol).max(0) as u64 * US + 2 * crate::engine::SEC
        };
        // Sniff: wait for what the sender sends next.
        let mut frags: Vec<(SimTime, Packet)> = Vec::new();
        let mut got = 0u64;
        loop {
            while self.out.is_empty() {
                if !self.fire_next(deadline) {
                    let have = frags.first().map_or(String::new(), |(at, p)| {
                        format!("; sent so far: {}", self.show(p, *at))
                    });
                    return Err(Stop::Fail(format!(
                        "expected {} at {:.6} s but the sender sent nothing more (by {:.6} s){have}",
                        spec_str(sp),
                        t as f64 / 1e6,
                        secs(deadline)
                    )));
                }
            }
            let Some((at, p)) = self.out.pop_front() else {
                break;
            };
            self.now = self.now.max(at);
            got += p.payload as u64;
            let contiguous = frags
                .last()
                .is_none_or(|(_, q)| q.seq + q.payload as u64 == p.seq && p.payload > 0);
            if !contiguous {
                self.out.push_front((at, p));
                break;
            }
            frags.push((at, p));
            if got >= sp.len || sp.len == 0 {
                break;
            }
        }
        // `aggregate_packets`: the headers (flags, time) of the last packet, the sequence
        // number and CWR of the first.
        let (at, last) = frags[frags.len() - 1].clone();
        let first = &frags[0].1;
        let mut p = last.clone();
        p.seq = first.seq;
        p.payload = got as u32;
        p.flags = (last.flags & !CWR) | (first.flags & CWR);
        let actual = self.show(&p, at);
        let mism = |what: String| {
            Stop::Fail(format!(
                "{what}\n    script: {} at {:.6} s\n    actual: {actual}",
                spec_str(sp),
                t as f64 / 1e6
            ))
        };
        if flag_bits(&sp.flags) != p.flags {
            return Err(mism(format!(
                "bad flags: expected {} but got {}",
                sp.flags,
                flag_str(p.flags)
            )));
        }
        if sp.start != p.seq || sp.len != got {
            return Err(mism(format!(
                "bad sequence range: expected {}:{}({}) but got {}:{}({got})",
                sp.start,
                sp.end,
                sp.len,
                p.seq,
                p.seq + got
            )));
        }
        if let Some(a) = sp.ack {
            if a != p.ack {
                return Err(mism(format!("bad ack: expected {a} but got {}", p.ack)));
            }
        }
        if sp.win.is_some() {
            return Err(Stop::Na(
                "an outbound window value (cclab's sender advertises no receive window)".into(),
            ));
        }
        let ecn_ok = match sp.ecn {
            None => true,
            Some(Ecn::NoEcn) => p.ecn == NOT_ECT,
            Some(Ecn::Ect0) => p.ecn == ECT0,
            Some(Ecn::Ect1) => p.ecn == ECT1,
            Some(Ecn::Ce) => p.ecn == CE,
            Some(Ecn::Ect01) => matches!(p.ecn, ECT0 | ECT1),
        };
        if !ecn_ok {
            return Err(mism("bad IP ECN field".into()));
        }
        if let Some(want) = &sp.options {
            let have = self.actual_options(&p);
            let same = want.len() == have.len()
                && want.iter().zip(&have).all(|(w, h)| match (w, h) {
                    (TcpOpt::Ts { .. }, TcpOpt::Ts { .. }) => true,
                    _ => w == h,
                });
            if !same {
                return Err(mism(format!(
                    "bad outbound TCP options: expected{} but got{}",
                    opts_str(want),
                    opts_str(&have)
                )));
            }
            if let (Some(TcpOpt::Ts { val, .. }), None) = (
                want.iter().find(|o| matches!(o, TcpOpt::Ts { .. })),
                self.ts_map,
            ) {
                self.ts_map = Some((*val, p.tsval));
            }
        }
        // Timing (`verify_time`), of the first packet.
        let at_us = (at / US) as i64; // the last fragment's time, as packetdrill takes it
        if !any && (at_us < t - tol || at_us > t_end + tol) {
            let range = if t_end > t {
                format!("in {:.6}~{:.6} s", t as f64 / 1e6, t_end as f64 / 1e6)
            } else {
                format!("at {:.6} s", t as f64 / 1e6)
            };
            return Err(mism(format!(
                "timing error: expected the packet {range} but it was sent at {:.6} s; tolerance {:.6} s",
                at_us as f64 / 1e6,
                tol as f64 / 1e6
            )));
        }
        Ok(())
    }

    fn show(&self, p: &Packet, at: SimTime) -> String {
        let mut s = format!(
            "> {}{} {}:{}({}) ack {}",
            ecn_str(p.ecn),
            flag_str(p.flags),
            p.seq,
            p.seq + p.payload as u64,
            p.payload,
            p.ack
        );
        s += &opts_str(&self.actual_options(p));
        s + &format!(" at {:.6} s", secs(at))
    }

    fn new_sender(&mut self, listener: bool) -> Result<(), Stop> {
        let mut cfg = self.conf.cfg.clone();
        cfg.ecn = if listener {
            self.conf.ecn_mode >= 1
        } else {
            self.conf.ecn_mode == 1
        };
        let cfg = Arc::new(cfg);
        let cc = cfg.congestion_control().map_err(Stop::Na)?;
        let addr = Addr {
            client: 0,
            server: 1,
            ..Addr::default()
        };
        self.snd = Some(Sender::new(addr, &cfg, cc, self.now, Some(0)));
        Ok(())
    }

    fn syscall(&mut self, s: &Syscall) -> Result<(), Stop> {
        let int = |i: usize| match s.args.get(i) {
            Some(Arg::Int(n)) => Some(*n),
            Some(Arg::List(v)) => match v.first() {
                Some(Arg::Int(n)) => Some(*n),
                _ => None,
            },
            _ => None,
        };
        match s.name.as_str() {
            "socket" => {
                if !s.args.iter().any(|a| *a == Arg::Word("SOCK_STREAM".into())) {
                    return Err(Stop::Na("a socket other than SOCK_STREAM".into()));
                }
            }
            "bind" => {}
            "listen" => {
                self.new_sender(true)?;
                if let Some(x) = self.snd.as_mut() {
                    x.listen();
                }
            }
            "connect" => {
                self.new_sender(false)?;
                self.call(|x, io| x.connect(io));
            }
            "accept" => {
                let st = self.snd()?.state;
                if st != SndState::Established {
                    return Err(Stop::Fail(format!(
                        "accept() = {}: no connection is established (state {st:?})",
                        s.ret
                    )));
                }
            }
            "write" => {
                let n = int(2).ok_or_else(|| Stop::Na("write() without a byte count".into()))?;
                if s.ret != n {
                    return Err(Stop::Na(format!(
                        "a partial write ({n} bytes, returns {})",
                        s.ret
                    )));
                }
                if self.snd()?.state != SndState::Established {
                    return Err(Stop::Fail(
                        "write() on a connection that is not established".into(),
                    ));
                }
                self.call(|x, io| x.app_write(n.max(0) as u64, io));
            }
            "close" => {
                if self
                    .snd
                    .as_ref()
                    .is_some_and(|x| x.state == SndState::Established)
                {
                    self.call(|x, io| x.close(io));
                }
            }
            "setsockopt" => {
                if let Some(Arg::Word(w)) = s.args.get(2) {
                    if w == "SO_SNDBUF" {
                        let v =
                            int(3).ok_or_else(|| Stop::Na("SO_SNDBUF without a value".into()))?;
                        // `sock_setsockopt`: the kernel keeps twice the value set.
                        let bytes = 2 * v.max(0) as u64;
                        match self.snd.as_mut() {
                            Some(x) => x.set_sndbuf(bytes),
                            None => self.conf.cfg.sndbuf = bytes.max(self.conf.cfg.mtu as u64),
                        }
                    }
                }
            }
            n => return Err(Stop::Na(format!("system call {n}()"))),
        }
        Ok(())
    }

    fn code(&mut self, line: usize, src: &str) -> Result<(), Stop> {
        let info = self.snd.as_ref().map(snapshot).unwrap_or_default();
        let get = |n: &str| info.iter().find(|(k, _)| *k == n).map(|(_, v)| *v);
        match py::run(src, &mut self.py, &get) {
            Ok(()) => Ok(()),
            Err(py::PyError::Assert(m)) => {
                self.assert_fail
                    .get_or_insert((line, format!("assertion failed: {m}")));
                Ok(())
            }
            Err(py::PyError::Unsupported(f)) => Err(Stop::Na(format!("Python: {f}"))),
        }
    }
}

/// `TCP_INFO` as Linux `tcp_get_info` fills it, for the fields cclab's sender has
/// (`Sender::info`, `tcp/sender/info.rs`).
fn snapshot(s: &Sender) -> Vec<(&'static str, i64)> {
    let i = s.info();
    vec![
        ("tcpi_snd_cwnd", i.snd_cwnd as i64),
        ("tcpi_snd_ssthresh", i.snd_ssthresh as i64),
        ("tcpi_ca_state", i.ca_state as i64),
        ("tcpi_unacked", i.unacked as i64),
        ("tcpi_sacked", i.sacked as i64),
        ("tcpi_lost", i.lost as i64),
        ("tcpi_retrans", i.retrans as i64),
        ("tcpi_reordering", i.reordering as i64),
        ("tcpi_reord_seen", i.reord_seen as i64),
        ("tcpi_dsack_dups", i.dsack_dups as i64),
        ("tcpi_rtt", i.rtt as i64),
        ("tcpi_rttvar", i.rttvar as i64),
        ("tcpi_min_rtt", i.min_rtt as i64),
        ("tcpi_rto", (s.current_rto() / US) as i64),
        ("tcpi_snd_mss", s.mss as i64),
        ("tcpi_total_retrans", i.total_retrans as i64),
        ("tcpi_data_segs_out", s.stats.data_segs_out as i64),
    ]
}
