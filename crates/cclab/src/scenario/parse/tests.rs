use super::*;
use crate::engine::{MS, SEC, US};
use crate::scenario::*;
use crate::schema::check::name_list;

fn sets(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn parse(text: &str) -> Result<Scenario, Vec<ScenarioError>> {
    parse_scenario(text, "test.toml", &[])
}

fn errors(text: &str) -> Vec<ScenarioError> {
    match parse(text) {
        Ok(s) => panic!("expected errors, got {s:?}"),
        Err(e) => e,
    }
}

const MINIMAL: &str = r#"
    [sim]
    duration = "2s"
    [topology]
    kind = "dumbbell"
    senders = 3
    bottleneck = { rate = "1Gbps", delay = "10ms" }
"#;

#[test]
fn every_example_parses() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).expect("examples directory") {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            if let Err(es) = load_scenario(&path, &[]) {
                let msgs: Vec<String> = es.iter().map(ToString::to_string).collect();
                panic!("{} does not parse:\n{}", path.display(), msgs.join("\n"));
            }
            n += 1;
        }
    }
    assert!(n >= 4, "expected at least 4 examples, found {n}");
}

#[test]
fn five_mistakes_give_five_errors() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../cclab-cli/tests/data/five_mistakes.toml");
    let errs = load_scenario(&path, &[]).unwrap_err();
    let shown: Vec<String> = errs.iter().map(ToString::to_string).collect();
    assert_eq!(errs.len(), 5, "{shown:#?}");
    let expect = [
        ("sim.duration", "\"-1s\"", "negative"),
        (
            "topology.bottleneck.rate",
            "\"10Gbs\"",
            "unknown rate unit \"Gbs\"",
        ),
        ("tcp.cc", "\"cubik\"", "did you mean \"cubic\""),
        ("flow.0.to", "\"r7\"", "unknown host"),
        ("flow.0.colour", "\"blue\"", "unknown key 'colour'"),
    ];
    for (key, value, msg) in expect {
        let e = errs
            .iter()
            .find(|e| e.key == key)
            .unwrap_or_else(|| panic!("no error for {key}: {shown:#?}"));
        assert_eq!(e.value, value, "{e}");
        assert!(e.message.contains(msg), "{e}");
        assert!(e.file.ends_with("five_mistakes.toml"), "{e}");
    }
    // The display form names file, key and value.
    let rate = errs
        .iter()
        .find(|e| e.key == "topology.bottleneck.rate")
        .unwrap();
    assert!(rate.to_string().ends_with(
        "five_mistakes.toml: key 'topology.bottleneck.rate' = \"10Gbs\": unknown rate unit \"Gbs\"; did you mean \"Gbps\"? use bps, Kbps, Mbps, Gbps, Tbps or kbit, Mbit, Gbit (bits per second; e.g. \"10Gbps\")"
    ), "{rate}");
    let host = errs.iter().find(|e| e.key == "flow.0.to").unwrap();
    assert!(
        host.message.contains("s0…s1") || host.message.contains("s0, s1"),
        "{host}"
    );
}

#[test]
fn defaults_fill_in() {
    let s = parse(MINIMAL).unwrap();
    assert_eq!(s.name, "test");
    assert_eq!(s.duration, 2 * SEC);
    assert_eq!(s.seed, 1);
    assert_eq!(s.apps.flows.len(), 3);
    for (i, f) in s.apps.flows.iter().enumerate() {
        assert_eq!(
            (f.from.as_str(), f.to.as_str()),
            (format!("s{i}").as_str(), format!("r{i}").as_str())
        );
        assert_eq!((f.start, f.stop, f.bytes), (0, None, None));
        assert_eq!(f.tcp, TcpConfig::default());
    }
    match &s.topology {
        TopologySpec::Dumbbell {
            senders,
            bottleneck,
            access_rate_bps,
            access_delay,
            access_queue,
        } => {
            assert_eq!(*senders, 3);
            assert_eq!(bottleneck.rate_bps, 1_000_000_000);
            assert_eq!(bottleneck.delay, 10 * MS);
            assert_eq!(bottleneck.queue, QueueSpec::droptail(Limit::Packets(1000)));
            assert_eq!(*access_rate_bps, 10_000_000_000);
            assert_eq!(access_delay, &vec![US; 3]);
            assert_eq!(access_queue, &QueueSpec::droptail(Limit::Packets(10_000)));
        }
        t => panic!("{t:?}"),
    }
    assert!(s.apps.pings.is_empty() && s.losses.is_empty());
    assert_eq!(s.output, OutputSpec::default());
    // An explicit empty list means no flows at all (e.g. a ping-only run).
    let s = parse(&format!("flow = []\n{MINIMAL}")).unwrap();
    assert!(s.apps.flows.is_empty());
}

#[test]
fn tcp_defaults_and_per_flow_overrides() {
    let s = parse(&format!(
        "{MINIMAL}
        [tcp]
        cc = \"reno\"
        sndbuf = \"16MiB\"
        init_ssthresh = 20
        [[flow]]
        from = \"s0\"
        to = \"r0\"
        [[flow]]
        from = \"s1\"
        to = \"r1\"
        cc = \"cubic\"
        mtu = 9000
        start = \"1s\"
        stop = \"1.5s\"
        bytes = \"10MB\"
        "
    ))
    .unwrap();
    assert_eq!(s.apps.flows.len(), 2);
    assert_eq!(s.apps.flows[0].tcp.cc, "reno");
    assert_eq!(s.apps.flows[0].tcp.sndbuf, 16 << 20);
    assert_eq!(s.apps.flows[0].tcp.init_ssthresh, Some(20));
    assert_eq!(s.apps.flows[1].tcp.cc, "cubic");
    assert_eq!(s.apps.flows[1].tcp.sndbuf, 16 << 20);
    assert_eq!(s.apps.flows[1].tcp.mtu, 9000);
    assert_eq!(
        (
            s.apps.flows[1].start,
            s.apps.flows[1].stop,
            s.apps.flows[1].bytes
        ),
        (SEC, Some(1_500 * MS), Some(10_000_000))
    );
}

#[test]
fn set_overrides() {
    let s = parse_scenario(
        &format!("{MINIMAL}\n[[flow]]\nfrom = \"s0\"\nto = \"r0\"\n"),
        "x.toml",
        &sets(&[
            ("tcp.cc", "reno"),
            ("topology.bottleneck.rate", "600Mbps"),
            ("sim.duration", "5s"),
            ("sim.seed", "7"),
            ("flow.0.cc", "cubic"),
            ("flow.1.from", "s2"),
            ("flow.1.to", "r2"),
            ("topology.access_delay", "[\"1ms\", \"2ms\", \"3ms\"]"),
            ("output.plots", "true"),
        ]),
    )
    .unwrap();
    assert_eq!(s.duration, 5 * SEC);
    assert_eq!(s.seed, 7);
    assert_eq!(s.apps.flows.len(), 2);
    assert_eq!(s.apps.flows[0].tcp.cc, "cubic");
    assert_eq!(s.apps.flows[1].tcp.cc, "reno");
    assert_eq!(s.apps.flows[1].from, "s2");
    assert!(s.output.plots);
    match s.topology {
        TopologySpec::Dumbbell {
            bottleneck,
            access_delay,
            ..
        } => {
            assert_eq!(bottleneck.rate_bps, 600_000_000);
            assert_eq!(access_delay, vec![MS, 2 * MS, 3 * MS]);
        }
        t => panic!("{t:?}"),
    }
}

#[test]
fn set_reaches_aggregates_and_their_tcp_keys() {
    let file = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/incast.toml"
    ))
    .unwrap();
    let s = parse_scenario(
        &file,
        "incast.toml",
        &sets(&[("aggregate.0.queries", "3"), ("aggregate.0.cc", "cubic")]),
    )
    .unwrap();
    assert_eq!(s.apps.aggregates[0].queries, 3);
    assert_eq!(s.apps.aggregates[0].tcp.cc, "cubic");
    let e = parse_scenario(
        &file,
        "incast.toml",
        &sets(&[("aggregate.0.colour", "red")]),
    )
    .unwrap_err();
    assert!(e[0].message.contains("unknown key 'colour'"), "{}", e[0]);
}

#[test]
fn ecn_k_zero_is_allowed_in_any_unit_and_nested_dscp_is_refused_in_any_case() {
    for (k, limit) in [("0pkts", "100pkts"), ("0B", "100pkts"), ("0pkts", "150KB")] {
        let s = parse(&format!(
            "[sim]\nduration = \"1s\"\n[topology]\nkind = \"chain\"\nhops = [{{ rate = \"1Gbps\", delay = \"1ms\", queue = \"ecn\", limit = \"{limit}\", k = \"{k}\" }}]\n"
        ));
        assert!(s.is_ok(), "k = {k}, limit = {limit}: {s:?}");
    }
    let e = errors("[sim]\nduration = \"1s\"\n[topology]\nkind = \"chain\"\nhops = [{ rate = \"1Gbps\", delay = \"1ms\", queue = \"dscp\", classes = [{ queue = \"DSCP\" }] }]\n");
    assert_eq!(e.len(), 1, "{e:#?}");
    assert_eq!(e[0].key, "topology.hops.0.classes.0.queue");
    assert!(e[0].message.contains("not another"), "{}", e[0]);
}

#[test]
fn sampling_intervals_are_bounded_by_memory() {
    // 2 s at 200 ns = 10^7 samples: allowed; at 199 ns: too many per series.
    let ok = parse(&format!("{MINIMAL}\n[output]\ncwnd = \"200ns\"\n"));
    assert!(ok.is_ok(), "{ok:?}");
    let e = errors(&format!(
        "{MINIMAL}\n[output]\ncwnd = \"199ns\"\nqueue = \"1ps\"\n[[ping]]\nfrom = \"s0\"\nto = \"r0\"\ninterval = \"1ns\"\n"
    ));
    let keys: Vec<&str> = e.iter().map(|e| e.key.as_str()).collect();
    assert_eq!(
        keys,
        ["ping.0.interval", "output.cwnd", "output.queue"],
        "{e:#?}"
    );
    assert!(
        e[1].message.contains("at most 10000000 per series"),
        "{}",
        e[1]
    );
    assert!(e[1].message.contains("at least 200ns"), "{}", e[1]);
}

#[test]
fn bad_set_paths_and_values() {
    let errs = parse_scenario(
        MINIMAL,
        "x.toml",
        &sets(&[
            ("tcp.colour", "red"),
            ("flow.x.cc", "reno"),
            ("flow.3.cc", "reno"),
            ("topology.bottleneck.rate.x", "1"),
            ("sim.duration", "2x"),
        ]),
    )
    .unwrap_err();
    let shown: Vec<String> = errs.iter().map(ToString::to_string).collect();
    assert_eq!(errs.len(), 5, "{shown:#?}");
    assert!(errs.iter().all(|e| e.file == "--set"), "{shown:#?}");
    assert!(errs[0].key == "tcp.colour" && errs[0].message.contains("unknown key 'colour'"));
    assert!(errs[1].message.contains("not an index"), "{}", errs[1]);
    assert!(errs[2].message.contains("no entry 3"), "{}", errs[2]);
    // A link's rate may be a table (a trace-driven link), so the path is judged against
    // the file: there it is a string.
    assert!(errs[3].message.contains("not a table"), "{}", errs[3]);
    assert_eq!(errs[4].key, "sim.duration");
    assert_eq!(errs[4].value, "\"2x\"");
    assert!(errs[4].message.contains("unknown time unit"), "{}", errs[4]);
}

#[test]
fn set_reaches_inside_keys_read_by_hand() {
    // A tbf's `child` is a queue table its own parser reads: --set may set a key in it,
    // and that parser judges the result.
    let text = MINIMAL.replace(
        "bottleneck = { rate = \"1Gbps\", delay = \"10ms\" }",
        "bottleneck = { rate = \"1Gbps\", delay = \"1ms\", queue = \"tbf\", tbf = { rate = \"900mbit\", burst = \"12000B\", limit = \"1MB\", child = { queue = \"netem\", netem = { delay = \"50ms\", limit = 10000 } } } }",
    );
    assert!(parse_scenario(
        &text,
        "x.toml",
        &sets(&[("topology.bottleneck.tbf.child.netem.delay", "20ms")])
    )
    .is_ok());
    let errs = parse_scenario(
        &text,
        "x.toml",
        &sets(&[("topology.bottleneck.tbf.child.queue", "codel")]),
    )
    .unwrap_err();
    assert!(
        errs[0].message.contains("'netem' is for queue = \"netem\""),
        "{}",
        errs[0]
    );
}

/// netem's keys take tc's words; bad ones name the key, the value and what is allowed.
#[test]
fn netem_keys_read_tcs_words_and_name_bad_values() {
    let with = |netem: &str| {
        MINIMAL.replace(
            "bottleneck = { rate = \"1Gbps\", delay = \"10ms\" }",
            &format!("bottleneck = {{ rate = \"1Gbps\", delay = \"1ms\", queue = \"netem\", netem = {netem} }}"),
        )
    };
    let ok = with("{ delay = [\"100ms\", \"10ms\", \"25%\"], distribution = \"pareto\", loss = [\"state\", \"1%\", \"30%\"], duplicate = \"1%\", reorder = [\"25%\", \"50%\"], gap = 5, rate = [\"10Mbps\", 20, 48, 5] }");
    let sc = parse_scenario(&ok, "x.toml", &[]).unwrap();
    let crate::net::topology::spec::TopologySpec::Dumbbell { bottleneck, .. } = &sc.topology else {
        panic!("not a dumbbell");
    };
    let crate::qdisc::QueueSpec::Delay(n) = &bottleneck.queue else {
        panic!("not netem");
    };
    assert_eq!(
        (n.jitter, n.gap, n.rate, n.cell_size),
        (10 * crate::engine::MS, 5, 1_250_000, 48)
    );
    for (netem, key, says) in [
        ("{ loss = \"2\" }", "loss", "out of range"),
        (
            "{ loss = [\"markov\", \"1%\"] }",
            "loss",
            "unknown loss model",
        ),
        (
            "{ delay = \"1ms\", gap = 3 }",
            "gap",
            "needs a reorder probability",
        ),
        ("{ reorder = \"10%\" }", "reorder", "needs a delay"),
        (
            "{ delay = \"1ms\", distribution = \"normal\" }",
            "distribution",
            "needs a jitter",
        ),
        ("{ delay = [\"1ms\", \"3s\"] }", "delay", "32-bit"),
        ("{ ecn = true }", "ecn", "needs a loss model"),
        ("{ rate = \"4bps\" }", "rate", "at least 8bps"),
        ("{ rate = [\"1Mbps\", \"x\"] }", "rate", "expected"),
    ] {
        let errs = parse_scenario(&with(netem), "x.toml", &[]).unwrap_err();
        assert!(
            errs[0].key.ends_with(&format!("netem.{key}")) && errs[0].message.contains(says),
            "{netem}: {}",
            errs[0]
        );
    }
}

#[test]
fn command_line_overrides() {
    let apply = |sets: &[&str], seed: Option<u64>, pcap: &[&str]| {
        Overrides {
            sets: sets.iter().map(|s| s.to_string()).collect(),
            seed,
            pcap: pcap.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        }
        .apply(MINIMAL, "x.toml")
    };
    let s = apply(&[" tcp.cc = reno "], Some(7), &["s0", "bottleneck", "s0"]).unwrap();
    assert_eq!((s.apps.flows[0].tcp.cc.as_str(), s.seed), ("reno", 7));
    assert_eq!(s.output.pcap, ["s0", "bottleneck"]);
    // The captures are part of the resolved scenario: the output folder reruns them.
    assert!(
        s.source.contains("pcap = [\"s0\", \"bottleneck\"]"),
        "{}",
        s.source
    );
    // A word that is not KEY=VALUE, escaped in the message.
    let e = apply(&["tcp.cc", "=x", "\u{1b}[31m"], None, &[]).unwrap_err();
    assert_eq!(e.len(), 3, "{e:#?}");
    assert!(e
        .iter()
        .all(|e| e.file == "--set" && e.message.contains("KEY=VALUE")));
    assert!(e[2].message.starts_with("\"\\u{1b}[31m\""), "{}", e[2]);
    // An unknown capture is refused like one in the file, and said to be the option's.
    let e = apply(&[], None, &["s9"]).unwrap_err();
    assert_eq!(
        (e[0].file.as_str(), e[0].key.as_str()),
        ("--pcap", "output.pcap.0")
    );
    assert!(e[0].message.contains("unknown host or link"), "{}", e[0]);
    // A seed a scenario file cannot hold is the option's mistake, not a "string".
    let e = apply(&[], Some(u64::MAX), &[]).unwrap_err();
    assert_eq!(e[0].file, "--seed", "{e:#?}");
    assert!(e[0].message.contains("above the largest seed"), "{}", e[0]);
    assert_eq!(
        apply(&[], Some(i64::MAX as u64), &[]).unwrap().seed,
        i64::MAX as u64
    );
}

#[test]
fn set_value_parsing() {
    assert_eq!(set_value("true"), Value::Boolean(true));
    assert_eq!(set_value("3"), Value::Integer(3));
    assert_eq!(set_value("1e-3"), Value::Float(1e-3));
    assert_eq!(set_value("\"x\""), Value::String("x".into()));
    assert_eq!(set_value("reno"), Value::String("reno".into()));
    assert_eq!(set_value("1Gbps"), Value::String("1Gbps".into()));
    assert_eq!(set_value("1\nx = 2"), Value::String("1\nx = 2".into()));
}

#[test]
fn toml_syntax_error_is_one_error_with_a_line() {
    let errs = errors("[sim]\nduration = \"1s\nseed = 1\n");
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].key, "");
    assert!(errs[0].message.contains("line"), "{}", errs[0]);
}

#[test]
fn missing_required_keys() {
    let errs = errors("[topology]\nkind = \"star\"\n");
    let keys: Vec<&str> = errs.iter().map(|e| e.key.as_str()).collect();
    assert_eq!(keys, ["sim.duration", "topology.link"], "{errs:#?}");
    let errs = errors("[sim]\nduration = \"1s\"\n");
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].key, "topology");
}

#[test]
fn ecn_queue_rules() {
    let base = "[sim]\nduration = \"1s\"\n[topology]\nkind = \"star\"\nsenders = 8\n";
    let ok = parse(&format!("{base}link = {{ rate = \"10Gbps\", delay = \"10us\", queue = \"ecn\", limit = \"1MB\", k = \"75KB\" }}\n")).unwrap();
    match ok.topology {
        TopologySpec::Star { link, .. } => {
            assert_eq!(
                link.queue,
                QueueSpec::ecn(Limit::Bytes(1_000_000), Limit::Bytes(75_000))
            )
        }
        t => panic!("{t:?}"),
    }
    let e = errors(&format!(
        "{base}link = {{ rate = \"10Gbps\", delay = \"10us\", queue = \"ecn\" }}\n"
    ));
    assert_eq!(e.len(), 1);
    assert!(
        e[0].key == "topology.link.k" && e[0].message.contains("needs k"),
        "{}",
        e[0]
    );
    let e = errors(&format!("{base}link = {{ rate = \"10Gbps\", delay = \"10us\", queue = \"ecn\", limit = \"100pkts\", k = \"100pkts\" }}\n"));
    assert!(
        e.len() == 1 && e[0].message.contains("below the queue limit"),
        "{e:#?}"
    );
    let e = errors(&format!("{base}link = {{ rate = \"10Gbps\", delay = \"10us\", limit = \"100pkts\", k = \"10pkts\" }}\n"));
    assert!(
        e.len() == 1 && e[0].message.contains("is for queue = \"ecn\""),
        "{e:#?}"
    );
    // Mixed units: only both > 0 is required.
    parse(&format!("{base}link = {{ rate = \"10Gbps\", delay = \"10us\", queue = \"ecn\", limit = \"10pkts\", k = \"75KB\" }}\n")).unwrap();
}

#[test]
fn range_and_cross_checks() {
    let e = errors(&format!(
        "{MINIMAL}
        access_delay = [\"1ms\", \"2ms\"]
        [tcp]
        mtu = 100
        dscp = 64
        [[flow]]
        from = \"s0\"
        to = \"s0\"
        start = \"1s\"
        stop = \"3s\"
        [[ping]]
        from = \"s1\"
        to = \"r1\"
        [[loss]]
        link = \"bottlenek\"
        rate = 1.5
        drop_nth = [{{ flow = 4, n = 0 }}]
        [output]
        queues = [\"nowhere\"]
        "
    ));
    let keys: Vec<&str> = e.iter().map(|e| e.key.as_str()).collect();
    assert_eq!(
        keys,
        [
            "topology.access_delay",
            "tcp.mtu",
            "tcp.dscp",
            "flow.0.to",
            "flow.0.stop",
            "ping.0.interval",
            "loss.0.link",
            "loss.0.rate",
            "loss.0.drop_nth.0.flow",
            "loss.0.drop_nth.0.n",
            "output.queues.0",
        ],
        "{e:#?}"
    );
    assert!(
        e[6].message.contains("did you mean \"bottleneck\""),
        "{}",
        e[6]
    );
}

#[test]
fn bare_numbers_are_refused_for_units() {
    let e = errors("[sim]\nduration = 10\n[topology]\nkind = \"chain\"\nhops = [{ rate = 1000000000, delay = \"1ms\", limit = 100 }]\n");
    let keys: Vec<&str> = e.iter().map(|e| e.key.as_str()).collect();
    assert_eq!(
        keys,
        [
            "sim.duration",
            "topology.hops.0.rate",
            "topology.hops.0.limit"
        ]
    );
    assert!(
        e.iter().all(|e| e.message.contains("bare number")),
        "{e:#?}"
    );
}

#[test]
fn keys_of_another_topology_kind_are_explained() {
    let e = errors("[sim]\nduration = \"1s\"\n[topology]\nkind = \"chain\"\nsenders = 3\nhops = [{ rate = \"1Gbps\", delay = \"1ms\" }]\n");
    assert_eq!(e.len(), 1);
    assert!(
        e[0].message.contains("is for kind = \"dumbbell\""),
        "{}",
        e[0]
    );
}

#[test]
fn host_lists_are_folded() {
    let names: Vec<String> = (0..100)
        .map(|i| format!("s{i}"))
        .chain(std::iter::once("recv".into()))
        .collect();
    assert_eq!(name_list(&names), "s0…s99, recv");
    assert_eq!(
        name_list(&["s0".into(), "s1".into(), "r0".into(), "r1".into()]),
        "s0, s1, r0, r1"
    );
}

#[test]
fn listed_names_are_escaped_and_cut() {
    // Found by the fuzz test: a link's reverse name "\0" (refused itself) reached the
    // terminal raw in the list of names of another key's error.
    let text = r#"
        [sim]
        duration = "1s"
        [topology]
        kind = "graph"
        hosts = ["a", "b"]
        links = [{ from = "a", to = "b", rate = "1Gbps", delay = "1ms", reverse = { name = "\u001b[2J" } }]
        [[flow]]
        from = "a"
        to = "b"
        [[loss]]
        link = "nope"
    "#;
    let e = errors(text);
    let shown: Vec<String> = e.iter().map(ToString::to_string).collect();
    assert_eq!(e.len(), 2, "{shown:#?}");
    assert!(shown[1].contains("a_b, \\u{1b}[2J"), "{}", shown[1]);
    assert!(shown.iter().all(|s| !s.contains('\u{1b}')), "{shown:#?}");
    let long = "x".repeat(1000);
    assert_eq!(name_list(&[long]), format!("{}…", "x".repeat(40)));
}

#[test]
fn keys_inside_an_echoed_value_are_escaped() {
    // Found by the fuzz test: a class table with a key "\0", echoed in an error of the
    // classes array, put the raw byte on the terminal.
    let e = errors(
        r#"
        [sim]
        duration = "1s"
        [topology]
        kind = "star"
        link = { rate = "1Gbps", delay = "1ms", queue = "dscp", classes = [
            { "\u0000" = 0, dscp = 2 }, { dscp = 1 } ] }
        "#,
    );
    let shown: Vec<String> = e.iter().map(ToString::to_string).collect();
    let classes = shown
        .iter()
        .find(|s| s.contains("key 'topology.link.classes' = [{ \"\\0\" = 0, dscp = 2 }"))
        .unwrap_or_else(|| panic!("{shown:#?}"));
    assert!(classes.contains("exactly one class"), "{classes}");
    assert!(shown.iter().all(|s| !s.contains('\0')), "{shown:#?}");
    // And a huge value is not rendered whole to be cut.
    let big = Value::Array(vec![Value::String("x".repeat(10_000_000)); 3]);
    // The fastest of five calls, so that a busy machine descheduling one call cannot fail
    // the test; a rendering of the whole value would copy its 30 MB in each of them.
    let fastest = (0..5)
        .map(|_| {
            let t0 = std::time::Instant::now();
            assert_eq!(super::super::check::show(&big).chars().count(), 81);
            t0.elapsed()
        })
        .min()
        .expect("five calls");
    assert!(
        fastest < std::time::Duration::from_millis(100),
        "{fastest:?}"
    );
}

#[test]
fn dscp_classified_port() {
    let text = r#"
[sim]
duration = "1s"
[topology]
kind = "star"
senders = 3
link = { rate = "10Gbps", delay = "10us", queue = "dscp", scheduler = "strict", limit = "600KB", classes = [
{ dscp = [1], queue = "ecn", limit = "500KB", k = "75KB" },
{ queue = "droptail", limit = "500KB", weight = 2 },
] }
"#;
    let sc = parse(text).unwrap();
    let TopologySpec::Star { link, .. } = &sc.topology else {
        panic!()
    };
    let QueueSpec::Classes(crate::qdisc::classful::Spec {
        classes,
        sched,
        limit,
    }) = &link.queue
    else {
        panic!("{:?}", link.queue)
    };
    assert_eq!(*sched, Sched::Strict);
    assert_eq!(*limit, Some(Limit::Bytes(600_000)));
    assert_eq!(classes[0].dscp, vec![1]);
    assert_eq!(
        classes[0].queue,
        QueueSpec::ecn(Limit::Bytes(500_000), Limit::Bytes(75_000))
    );
    assert_eq!((classes[1].dscp.len(), classes[1].weight), (0, 2));
    // Two default classes, a DSCP out of range and k at port level: three errors.
    let bad = text
        .replace("dscp = [1], ", "dscp = [64], ")
        .replace(
            r#"{ queue = "droptail", limit = "500KB", weight = 2 }"#,
            r#"{ queue = "droptail" }, { queue = "droptail" }"#,
        )
        .replace(
            r#"scheduler = "strict","#,
            r#"scheduler = "strict", k = "1KB","#,
        );
    let errs = parse(&bad).unwrap_err();
    assert_eq!(errs.len(), 3, "{errs:#?}");
    assert!(errs.iter().any(|e| e.key == "topology.link.classes.0.dscp"));
    assert!(errs.iter().any(|e| e.key == "topology.link.k"));
    assert!(errs
        .iter()
        .any(|e| e.key == "topology.link.classes" && e.message.contains("exactly one")));
}

#[test]
fn graph_topologies_are_checked_like_any_other() {
    let base = r#"
[sim]
duration = "1s"
[topology]
kind = "graph"
hosts = ["a", "b", "c"]
switches = ["sw"]
links = [
  { name = "up", from = "a", to = "sw", rate = "1Gbps", delay = "1ms" },
  { from = "sw", to = "b", rate = "100Mbps", delay = "1ms", queue = "ecn", limit = "100pkts", k = "20pkts", reverse = { name = "b_up", limit = "50pkts" } },
  { name = "c_up", from = "c", to = "sw", rate = "1Gbps", delay = "1ms", framing = "ip" },
]
[[flow]]
from = "a"
to = "b"
[[loss]]
link = "b_up"
rate = 0.01
"#;
    let s = parse(base).unwrap();
    let TopologySpec::Graph(g) = &s.topology else {
        panic!("{:?}", s.topology)
    };
    assert_eq!(g.nodes.len(), 4);
    assert_eq!(g.links[1].name, "sw_b", "the default name is from_to");
    assert_eq!(g.links[1].reverse_name, "b_up");
    assert_eq!(
        g.links[1].queue,
        QueueSpec::ecn(Limit::Packets(100), Limit::Packets(20))
    );
    assert_eq!(
        g.links[1].reverse_queue,
        QueueSpec::droptail(Limit::Packets(50))
    );
    assert_eq!(g.links[2].framing, Framing::Ip);
    assert_eq!(
        s.topology.link_names(),
        ["up", "up_rev", "sw_b", "b_up", "c_up", "c_up_rev"]
    );
    // A graph has no default flows.
    let s = parse(&base.replace("[[flow]]\nfrom = \"a\"\nto = \"b\"\n", "")).unwrap();
    assert!(s.apps.flows.is_empty());
    // Mistakes: an unknown end, a node named twice, a link name used twice, a host without
    // a link, a key of another queue discipline.
    let bad = base
        .replace(r#"from = "c", to = "sw""#, r#"from = "c", to = "sw9""#)
        .replace(r#"switches = ["sw"]"#, r#"switches = ["sw", "a"]"#)
        .replace(r#"name = "c_up""#, r#"name = "up""#)
        .replace(
            r#"hosts = ["a", "b", "c"]"#,
            r#"hosts = ["a", "b", "c", "d"]"#,
        )
        .replace(r#"delay = "1ms" },"#, r#"delay = "1ms", k = "1pkts" },"#);
    let e = parse(&bad).unwrap_err();
    let keys: Vec<&str> = e.iter().map(|e| e.key.as_str()).collect();
    assert_eq!(
        keys,
        [
            "topology.switches.1",
            "topology.links.0.k",
            "topology.links.2.to",
            "topology.links.2.name",
            "topology.hosts",
        ],
        "{e:#?}"
    );
    assert!(
        e[2].message.contains("no host or switch named \"sw9\""),
        "{}",
        e[2]
    );
    assert!(e[4].message.contains("host \"d\" has no link"), "{}", e[4]);
}

#[test]
fn an_unknown_link_end_is_echoed_cut_and_escaped() {
    // Found by the fuzz test: the whole value was echoed, 20 kB of it.
    let long = "9".repeat(20_000);
    for (end, shown) in [
        (long.as_str(), "\"9999"),
        ("sw\\u001b[2J", "\"sw\\u{1b}[2J\""),
    ] {
        let text = format!(
            r#"
            [sim]
            duration = "1s"
            [topology]
            kind = "graph"
            hosts = ["a", "b"]
            links = [{{ from = "a", to = "b", rate = "1Gbps", delay = "1ms" }},
                     {{ from = "a", to = "{end}", rate = "1Gbps", delay = "1ms" }}]
            [[flow]]
            from = "a"
            to = "b"
            "#
        );
        let e = errors(&text);
        let m = &e
            .iter()
            .find(|e| e.key == "topology.links.1.to")
            .unwrap()
            .message;
        assert!(
            m.starts_with(&format!("no host or switch named {shown}")),
            "{m}"
        );
        assert!(m.len() < 200 && !m.contains('\u{1b}'), "{m}");
    }
}

#[test]
fn the_resolved_source_reruns_the_same_scenario() {
    for f in ["dumbbell", "incast", "graph", "chain", "loss"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../examples/{f}.toml"));
        let sets = sets(&[("tcp.cc", "reno"), ("sim.seed", "9")]);
        let a = load_scenario(&path, &sets).unwrap();
        assert!(a.source.contains("cc = \"reno\"") && a.source.contains("seed = 9"));
        let b = parse_scenario(&a.source, "elsewhere.toml", &[]).unwrap();
        assert_eq!(
            Scenario {
                source: String::new(),
                ..a.clone()
            },
            Scenario {
                source: String::new(),
                ..b.clone()
            },
            "{f}"
        );
        assert_eq!(a.run_id(), b.run_id(), "{f}: same run, same id");
        let c = load_scenario(&path, &[]).unwrap();
        assert_ne!(a.run_id(), c.run_id(), "{f}: another run, another id");
    }
}

#[test]
fn plot_axes_are_read_in_each_plots_unit_and_checked() {
    let s = parse(&format!(
        r#"{MINIMAL}
    [output.plot.throughput]
    xmin = "500ms"
    ymax = "1Gbps"
    [output.plot.queue]
    ymin = "10KB"
    ymax = "300KB"
    [output.plot.cwnd]
    xmax = "1s"
    ymax = 200
"#
    ))
    .unwrap();
    let a = &s.output.axes;
    assert_eq!(a.throughput.xmin, Some(500 * MS));
    assert_eq!(a.throughput.ymax, Some(1e9));
    assert_eq!((a.queue.ymin, a.queue.ymax), (Some(10e3), Some(300e3)));
    assert_eq!((a.cwnd.xmax, a.cwnd.ymax), (Some(SEC), Some(200.0)));
    assert_eq!(a.tsg, Axes::default());
    // Wrong unit for the plot, inverted ranges, unknown plots and keys.
    let e = errors(&format!(
        r#"{MINIMAL}
    [output.plot.throughput]
    ymax = "300KB"
    [output.plot.cwnd]
    xmin = "2s"
    xmax = "1s"
    [output.plot.queue]
    ymin = "2MB"
    ymax = "1MB"
    [output.plot.rtt]
    ymax = 1
"#
    ));
    let text: Vec<String> = e.iter().map(|e| e.to_string()).collect();
    assert_eq!(text.len(), 4, "{text:#?}");
    assert!(text
        .iter()
        .any(|t| t.contains("output.plot.throughput.ymax")));
    assert!(text
        .iter()
        .any(|t| t.contains("output.plot.cwnd.xmax") && t.contains("above xmin")));
    assert!(text
        .iter()
        .any(|t| t.contains("output.plot.queue.ymax") && t.contains("above ymin")));
    assert!(text.iter().any(|t| t.contains("unknown key 'rtt'")));
}

/// Text and `--set` values over the input limit are refused before they are parsed
/// (f07): Python hands text and `set=` values to the library without a file.
#[test]
fn f07_text_and_set_values_over_the_input_limit_are_refused() {
    let long = "#".repeat(MAX_INPUT_BYTES as usize + 1);
    let e = errors(&format!("{MINIMAL}\n{long}"));
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].message.contains("16 MiB limit"), "{}", e[0]);
    let v = "x".repeat(MAX_INPUT_BYTES as usize + 1);
    let e = parse_scenario(MINIMAL, "t.toml", &sets(&[("tcp.cc", &v)])).unwrap_err();
    assert_eq!(e[0].key, "tcp.cc");
    assert!(e[0].message.contains("16777217 bytes"), "{}", e[0]);
    let o = Overrides {
        sets: vec![format!("tcp.cc={v}")],
        ..Default::default()
    };
    let e = o.apply(MINIMAL, "t.toml").unwrap_err();
    assert_eq!((e[0].file.as_str(), e[0].key.as_str()), ("--set", "tcp.cc"));
    assert!(e[0].message.contains("16 MiB limit"), "{}", e[0]);
    // At the limit, read and parsed.
    let pad = "#".repeat(MAX_INPUT_BYTES as usize - MINIMAL.len() - 1);
    assert!(parse(&format!("{MINIMAL}\n{pad}")).is_ok());
}
