//! Data-center workloads end to end: flows drawn from a CDF at a load on a fat-tree run
//! to completion with slowdowns against the closed-form ideal, and bad workloads are
//! refused with the key.

use cclab::scenario::parse_scenario;

fn run(text: &str) -> cclab::results::RunResult {
    let sc = parse_scenario(text, "w.toml", &[]).unwrap_or_else(|e| panic!("{e:?}"));
    cclab::world::run(&sc).unwrap()
}

const TREE: &str = r#"
[sim]
duration = "100ms"
seed = 3

[topology]
kind = "fat-tree"
k = 4
link = { rate = "10Gbps", delay = "1us", queue = "ecn", limit = "250pkts", k = "65pkts" }

[host]
tsq = true

[tcp]
cc = "dctcp"
"#;

#[test]
fn a_lone_one_segment_flow_completes_at_its_ideal() {
    // Long links, one 1000-byte flow: the ideal (3 one-way propagation delays and the
    // bytes at the slowest link) leaves out only the serialisation of the SYN, the SYN-ACK
    // and the data at the faster hops, and the host's processing jitter (off here): a few
    // microseconds against 30 ms.
    let r = run(r#"
[sim]
duration = "1s"
[topology]
kind = "dumbbell"
senders = 1
bottleneck = { rate = "1Gbps", delay = "10ms" }
[host]
jitter = "0s"
[[flow]]
from = "s0"
to = "r0"
bytes = "1000B"
"#);
    let f = &r.flows[0];
    let (fct, ideal) = (f.fct_s.unwrap(), f.ideal_fct_s.unwrap());
    assert!(fct >= ideal, "{fct} < {ideal}");
    // Handshake and data: 3 × the 10 ms bottleneck (the access links' delay is 0), plus
    // 1,090 bytes on the wire at 1 Gbit/s (8.7 µs).
    assert!((0.030..0.030_02).contains(&ideal), "{ideal}");
    assert!(fct - ideal < 30e-6, "{fct} vs {ideal}");
    // The sender's completion waits for the ACK's way back (10 ms) too.
    assert!(
        f.acked_s.unwrap() > fct + 0.0099,
        "{:?} vs {fct}",
        f.acked_s
    );
}

#[test]
fn a_websearch_workload_runs_on_a_fat_tree() {
    let r = run(&format!(
        "{TREE}\n[[workload]]\nsizes = \"websearch\"\nload = 0.3\nstop = \"60ms\"\n"
    ));
    let sized: Vec<_> = r.flows.iter().filter(|f| f.size_bytes.is_some()).collect();
    // 16 hosts × 0.3 × 10 Gbit/s × 60 ms / (8 × 1,711,250 B) ≈ 210 flows expected; a
    // Poisson count of mean 210 is within 3 standard deviations (± 44) of it.
    assert!((166..=254).contains(&sized.len()), "{} flows", sized.len());
    assert!(sized.iter().all(|f| f.from != f.to));
    let done: Vec<_> = sized.iter().filter(|f| f.fct_s.is_some()).collect();
    assert!(
        done.len() * 10 >= sized.len() * 8,
        "{} of {} done",
        done.len(),
        sized.len()
    );
    for f in &done {
        let s = f.fct_s.unwrap() / f.ideal_fct_s.unwrap();
        assert!(s >= 1.0, "flow {} slowdown {s}", f.id);
    }
    // The tidy tables: one fct row per sized flow, four buckets.
    let tables = cclab::report::table::run_tables(&r);
    let fct = tables.iter().find(|t| t.name == "fct").unwrap();
    assert_eq!(fct.rows(), sized.len());
    let b = tables.iter().find(|t| t.name == "fct_buckets").unwrap();
    assert_eq!(b.rows(), 4);
    // Same seed, same flows; another seed, other flows.
    let again = run(&format!(
        "{TREE}\n[[workload]]\nsizes = \"websearch\"\nload = 0.3\nstop = \"60ms\"\n"
    ));
    assert_eq!(
        serde_json::to_string(&again.flows).unwrap(),
        serde_json::to_string(&r.flows).unwrap()
    );
}

#[test]
fn bad_workloads_are_refused_with_the_key() {
    for (table, key, words) in [
        ("load = 1.5", "workload.0.load", "below 1"),
        (
            "sizes = \"no/such.cdf\"",
            "workload.0.sizes",
            "cannot be read",
        ),
        ("pattern = \"ring\"", "workload.0.pattern", "ring"),
        ("stop = \"1s\"", "workload.0.stop", "sim.duration"),
    ] {
        let text = format!("{TREE}\n[[workload]]\n{table}\n");
        let e = parse_scenario(&text, "w.toml", &[]).unwrap_err();
        assert!(
            e.iter()
                .any(|e| e.key == key && e.to_string().contains(words)),
            "{table}: {e:?}"
        );
    }
    // Too many flows for max_flows: refused when the world is built, before running.
    let text = format!("{TREE}\n[[workload]]\nsizes = \"datamining\"\nload = 0.9\nmax_flows = 2\n");
    let sc = parse_scenario(&text, "w.toml", &[]).unwrap();
    let e = cclab::sim::Sim::new(&sc).err().unwrap();
    assert!(e.contains("max_flows"), "{e}");
}

#[test]
fn a_workload_holds_endpoint_state_only_for_flows_that_are_running() {
    use cclab::conn::Ends;
    let text =
        format!("{TREE}\n[[workload]]\nsizes = \"websearch\"\nload = 0.3\nstop = \"60ms\"\n");
    let sc = parse_scenario(&text, "w.toml", &[]).unwrap();
    let mut sim = cclab::sim::Sim::new(&sc).unwrap();
    // Before the run no flow exists: a connection is created when its flow arrives.
    assert!(sim.conns.is_empty());
    let (mut most_open, mut logged) = (0, 0);
    let step = 5 * cclab::engine::MS;
    let mut t = 0;
    while t < sc.duration {
        t += step;
        sim.run_until(t);
        let mut open = 0;
        for (i, c) in sim.conns.iter().enumerate() {
            if let Some(Ends::Tcp(c)) = c.ends() {
                // Open means started and not finished.
                let m = &sim.conn_meta[i];
                assert!(m.start <= t && c.sender.done_at.is_none(), "slot {i}");
                open += 1;
            }
        }
        // A finished flow's row is logged once, and stays.
        assert!(sim.flow_log.len() >= logged);
        logged = sim.flow_log.len();
        most_open = most_open.max(open);
    }
    let r = sim.results();
    // Flows are numbered in arrival order, each once; a finished one's row is final.
    let n = r.flows.len();
    assert!(r.flows.iter().enumerate().all(|(i, f)| f.id as usize == i));
    // (Finished: every byte acknowledged, when the connection closes.)
    let finished = r.flows.iter().filter(|f| f.acked_s.is_some()).count();
    assert_eq!(finished as u64, sim.flow_log.len());
    for f in r.flows.iter().filter(|f| f.acked_s.is_some()) {
        assert_eq!(Some(f.bytes), f.size_bytes, "flow {}", f.id);
        assert!(f.fct_s.is_some(), "flow {}", f.id);
    }
    // Closed flows' slots are taken again, so the arena is as large as the most flows
    // open at once (79 here, of 194 flows), not as the flows of the run.
    assert!(finished * 10 >= n * 8, "{finished} of {n} finished");
    // The most flows open at once, from the rows: open from the start to the last ACK.
    let mut edges: Vec<(f64, i32)> = Vec::new();
    for f in &r.flows {
        edges.push((f.start_s, 1));
        edges.push((f.acked_s.map_or(f64::INFINITY, |d| f.start_s + d), -1));
    }
    edges.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let peak = edges
        .iter()
        .scan(0, |k, e| {
            *k += e.1;
            Some(*k)
        })
        .max()
        .unwrap() as usize;
    assert_eq!(sim.conns.len(), peak, "slots for {n} flows");
    assert!(most_open <= peak && 2 * peak < n);
    // The rows are those of a run without steps, and of a run that never reuses a slot
    // (so what still arrives for a closed connection never reaches its slot's next one).
    let whole = run(&text);
    let json = |f: &cclab::results::Flows| serde_json::to_string(f).unwrap();
    assert_eq!(json(&whole.flows), json(&r.flows));
    let mut fresh = cclab::sim::Sim::new(&sc).unwrap();
    fresh.reuse_slots = false;
    fresh.run();
    assert_eq!(fresh.conns.len(), n);
    let fr = fresh.results();
    assert_eq!(json(&fr.flows), json(&r.flows));
    assert_eq!(fr.engine.packet_hops, r.engine.packet_hops);
}

/// The end of a `cclab run` (`runner::run`) leaves the finished flows' rows in the run's
/// temporary file and reads them back as the files are written: the same results as those
/// read back at once, the open flows' rows and the per-host counters included.
#[test]
fn rows_left_on_file_are_the_rows_read_back() {
    let text =
        format!("{TREE}\n[[workload]]\nsizes = \"websearch\"\nload = 0.3\nstop = \"60ms\"\n");
    let sc = parse_scenario(&text, "w.toml", &[]).unwrap();
    let mut sim = cclab::sim::Sim::new(&sc).unwrap();
    // A 2 KB buffer: the rows go to the file in many sorted runs.
    sim.flow_log = cclab::results::FlowLog::with_spill(2048);
    sim.run();
    assert!(sim.flow_log.spilled_bytes() > 10 * 2048);
    let held = sim.results();
    let left = cclab::sim::try_collect_streaming(&mut sim).unwrap();
    assert!(left.flows.spilled() && !held.flows.spilled());
    assert!(
        held.flows.iter().any(|f| f.acked_s.is_none()),
        "some flows still open"
    );
    assert_eq!(left.flows.len(), held.flows.len());
    assert_eq!(
        serde_json::to_string(&left).unwrap(),
        serde_json::to_string(&held).unwrap()
    );
    assert_eq!(
        cclab::report::table::run_tables(&left),
        cclab::report::table::run_tables(&held)
    );
}
