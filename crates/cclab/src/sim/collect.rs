//! Collecting a run's results at its end (`Sim::results`): one row per connection (what its
//! endpoints counted), per port that carried traffic (what the port counted), per host
//! (netstat-style counters), then whatever each app reports (its own rows: pings, query
//! times, …; `results::apps`).

use crate::app::{App, ResultCx};
use crate::engine::{secs, SimTime};
use crate::net::NodeId;
use crate::results::AppTables;
use crate::results::*;
use crate::sim::Sim;

/// The receiver-side completion time (`fct_s`) of a flow of `bytes` alone on an empty
/// network, a lower bound of it: the handshake's round trip of propagation, the data's way
/// out, and the flow's bytes on the wire (each segment of at most `mss` with its IP, TCP
/// and timestamp headers and the link's framing) at the path's slowest link. It leaves
/// out the serialisation of the handshake and the store-and-forward of a packet at the
/// other hops, so slowdown = fct / ideal ≥ 1; the definition is pFabric's and HPCC's "FCT
/// on an idle network at line rate".
pub fn ideal_fct(net: &crate::net::Network, a: &crate::tcp::Addr, bytes: u64, mss: u32) -> SimTime {
    let walk = |from: NodeId, to: NodeId| {
        let (mut node, mut delay, mut slowest) = (from, 0, None::<(u64, u32)>);
        for _ in 0..net.nodes.len() {
            if node == to {
                break;
            }
            let Some(pid) = net.routes.next_port(node, to, a.hash) else {
                break;
            };
            let p = &net.port(pid);
            delay += p.delay;
            if slowest.is_none_or(|(r, _)| p.rate_bps < r) {
                slowest = Some((p.rate_bps, p.framing));
            }
            node = p.peer;
        }
        (delay, slowest.unwrap_or((u64::MAX, 0)))
    };
    let (out, (rate, framing)) = walk(a.client, a.server);
    let (back, _) = walk(a.server, a.client);
    let mss = mss.max(1) as u64;
    let segs = bytes.div_ceil(mss);
    let per_seg = (crate::packet::IP_TCP_HDR + crate::packet::TS_OPT + framing) as u64;
    let wire = bytes + segs * per_seg;
    2 * out + back + crate::engine::tx_time(wire, rate)
}

/// The result row of TCP connection `i` (`c`) at `end` (the end of the run, or when a
/// workload's flow closes: its numbers are final then).
pub fn flow_result(sim: &Sim, i: usize, c: &crate::tcp::TcpConn, end: SimTime) -> FlowResult {
    let m = &sim.conn_meta[i];
    let s = &c.sender;
    let r = &c.receiver;
    // A partition/aggregate app's worker connection writes a byte count only when asked
    // (`app::reqresp`): it is not a sized flow (the query is the unit, `AggregateResult`).
    let worker = matches!(
        sim.apps.get(m.app as usize),
        Some(crate::app::AnyApp::ReqResp(_))
    );
    let size = s.total_bytes.filter(|_| !worker);
    let fct = s
        .done_at
        .filter(|_| size.is_some())
        .map(|t| secs(t - m.start));
    let active_end = match (s.done_at, m.stop) {
        (Some(d), _) if s.total_bytes.is_some() => d,
        (_, Some(st)) => st.min(end),
        _ => end,
    };
    let dur = secs(active_end.saturating_sub(m.start));
    let h = &sim.probes.rtt.hist[i];
    FlowResult {
        id: m.id,
        from: sim.net.nodes[m.from as usize].name.clone(),
        to: sim.net.nodes[m.to as usize].name.clone(),
        cc: s.cc_name().to_string(),
        start_s: secs(m.start),
        bytes: r.delivered_bytes,
        goodput_bps: if dur > 0.0 {
            r.delivered_bytes as f64 * 8.0 / dur
        } else {
            0.0
        },
        retransmits: s.stats.retrans_segs,
        recovery_episodes: s.stats.recoveries,
        timeouts: s.stats.timeouts,
        other_timeouts: s.stats.other_timeouts,
        dupacks_in: s.stats.dupacks,
        syn_retransmits: s.stats.syn_retrans,
        ece_acks: s.stats.ece_acks,
        cwr_episodes: s.stats.cwr_episodes,
        ce_received: r.stats.ce_segs_in,
        data_segs_out: s.stats.data_segs_out,
        acks_sent: r.stats.acks_sent,
        delack_timeouts: r.stats.delack_timeouts,
        acked_s: fct,
        size_bytes: size,
        fct_s: size
            .filter(|&b| r.delivered_bytes >= b)
            .map(|_| secs(r.last_delivery - m.start)),
        ideal_fct_s: size.map(|b| secs(ideal_fct(&sim.net, &s.addr, b, s.mss))),
        rtt_mean_s: h.mean(),
        rtt_p99_s: h.quantile(0.99),
        final_cwnd: s.tp.snd_cwnd,
        ss: s.ss_line(),
    }
}

/// [`try_collect`], for callers that wrote no temporary file or cannot report an error
/// (tests, experiments).
pub fn collect(sim: &Sim) -> RunResult {
    try_collect(sim).expect("the finished flows' rows read back from the temporary file")
}

/// A run's results; an error if the finished flows' rows cannot be read back from the
/// temporary file the run wrote them to ([`crate::results::FlowLog`]).
pub fn try_collect(sim: &Sim) -> Result<RunResult, String> {
    // The open connections' rows and the finished flows', by flow number.
    let mut flows = sim.flow_log.rows().map_err(read_back)?;
    open_rows(sim, &mut flows);
    finish(sim, flows.into())
}

/// The open connections' rows, added to `flows`, and all of them sorted by flow number.
fn open_rows(sim: &Sim, flows: &mut Vec<FlowResult>) {
    let end = sim.q.now();
    for (i, c) in sim.conns.iter().enumerate() {
        if let Some(c) = c.tcp() {
            flows.push(flow_result(sim, i, c, end));
        }
    }
    flows.sort_by_key(|f| f.id);
}

/// [`try_collect`] for the end of a run: the rows the run wrote to its temporary file stay
/// there, and the result reads them back as it is used (`results::Flows`), so the files of
/// a run of many flows are written without holding every row. Takes the run's flow log.
pub fn try_collect_streaming(sim: &mut Sim) -> Result<RunResult, String> {
    let log = std::mem::take(&mut sim.flow_log);
    let (spilled, mut flows) = log.finish().map_err(read_back)?;
    open_rows(sim, &mut flows);
    finish(sim, crate::results::Flows::with_spilled(flows, spilled))
}

fn finish(sim: &Sim, mut flows: crate::results::Flows) -> Result<RunResult, String> {
    let sc = &sim.scenario;
    let end = sim.q.now();
    let queues = sim
        .net
        .ports()
        .iter()
        .filter(|p| p.stats.enqueued > 0 || p.loss().is_some() || p.ingress().is_some())
        .map(|p| {
            let st = &p.stats;
            QueueResult {
                name: p.name.clone(),
                max_bytes: st.max_bytes,
                max_pkts: st.max_pkts,
                mean_bytes: p.mean_bytes(end),
                drops: st.drops,
                marks: st.marks,
                enqueued: st.enqueued,
                tx_pkts: p.tx_pkts,
                tx_bytes: p.tx_bytes,
                injected_losses: p.loss().map_or(0, |l| l.dropped),
                police: p.ingress().map(|i| crate::results::PoliceResult {
                    conformed: i.policer.conformed,
                    exceeded: i.policer.exceeded,
                }),
            }
        })
        .collect();
    // netstat-style per-host TCP timeout counters, hosts in order of first appearance.
    let mut hosts: Vec<HostResult> = Vec::new();
    let mut index: std::collections::BTreeMap<String, usize> = Default::default();
    for f in &flows {
        match index.get(f.from.as_str()) {
            Some(&k) => hosts[k].tcp_timeouts += f.other_timeouts,
            None => {
                index.insert(f.from.clone(), hosts.len());
                hosts.push(HostResult {
                    host: f.from.clone(),
                    tcp_timeouts: f.other_timeouts,
                });
            }
        }
    }
    if let Some(e) = flows.read_error() {
        return Err(read_back(e));
    }
    flows.left_out_of_summary = sc.output.summary_without_flows;
    let mut r = RunResult {
        run_id: sc.run_id(),
        cclab: crate::VERSION.to_string(),
        git: crate::GIT_REV.to_string(),
        scenario: sc.name.clone(),
        seed: sc.seed,
        duration_s: secs(sc.duration),
        flows,
        queues,
        apps: AppTables::default(),
        hosts,
        engine: EngineResult {
            events: sim.q.events_processed(),
            packet_hops: sim.net.packet_hops,
            sim_time_s: secs(end),
            unroutable: sim.net.unroutable,
            ack_backlog_drops: sim.net.host.sack_cpu.as_ref().map_or(0, |c| c.dropped),
        },
        series: sim.probes.series.clone(),
    };
    let cx = ResultCx {
        now: end,
        conns: &sim.conns,
    };
    // Each app hands over its own rows; every kind an app type reports is declared first,
    // so a kind that always shows is there without such an app.
    crate::app::declare(&mut r.apps);
    let kinds = r.apps.reports().len();
    for a in &sim.apps {
        a.tables(&cx, &mut r.apps);
    }
    debug_assert_eq!(
        r.apps.reports().len(),
        kinds,
        "an app reported a kind of row it does not declare (App::declare)"
    );
    Ok(r)
}
