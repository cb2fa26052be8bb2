//! `cclab` — the command line. Thin: every command is a library call; this file only
//! parses arguments, prints, and maps outcomes to exit codes (0 ok, 1 failed checks,
//! 2 bad input).

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "cclab",
    version,
    about = "A congestion-control laboratory: a fast, deterministic packet-level network simulator"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run a scenario file and write summary.json, perf.json, flows.csv, queues.csv and
    /// the time series / plots the scenario asks for.
    Run {
        /// The scenario (TOML).
        file: PathBuf,
        /// Output directory (default: out/<scenario name>).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Master random seed (overrides [sim] seed).
        #[arg(long)]
        seed: Option<u64>,
        /// Override a scenario key, e.g. --set tcp.cc=reno --set topology.bottleneck.rate=1Gbps.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        sets: Vec<String>,
        /// Print summary.json to stdout instead of the table.
        #[arg(long)]
        json: bool,
        /// Capture a host (what it sends and receives) or a link (what leaves its port)
        /// into <out>/<NAME>.pcap; repeatable; adds to [output] pcap.
        #[arg(long = "pcap", value_name = "NAME")]
        pcap: Vec<String>,
    },
    /// Reproduce a built-in experiment from the seed documents (`cclab list` names them).
    Reproduce {
        /// Experiment name, or `all`.
        name: String,
        /// Shorter runs (what the test suite uses).
        #[arg(long)]
        quick: bool,
        /// Print one JSON object instead of the table.
        #[arg(long)]
        json: bool,
        /// Also write report.json, report.txt and plots into this directory.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Write the tables of the experiments run as one Markdown file (how
        /// docs/reproductions.md is made: `cclab reproduce all --markdown docs/reproductions.md`).
        #[arg(long)]
        markdown: Option<PathBuf>,
        /// Master random seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Worker threads for variants (0 = all cores).
        #[arg(long, default_value_t = 0)]
        threads: usize,
    },
    /// List the built-in experiments, topologies, queue disciplines and congestion
    /// controls (with --keys: every scenario key, its type and default).
    List {
        /// Print every scenario key path with its type and default.
        #[arg(long)]
        keys: bool,
    },
    /// Time fixed workloads: 16 CUBIC flows and 10 DCTCP flows (the ns-3/htsim comparison) on a 10 Gbit/s dumbbell, 1 s simulated each.
    Bench {
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match cli.cmd {
        Cmd::Run {
            file,
            out,
            seed,
            sets,
            json,
            pcap,
        } => run(&file, out, seed, &sets, json, &pcap),
        Cmd::Reproduce {
            name,
            quick,
            json,
            out,
            markdown,
            seed,
            threads,
        } => reproduce(&name, quick, json, out, markdown, seed, threads),
        Cmd::List { keys } => {
            if keys {
                print!("{}", cclab::scenario::doc::key_list());
            } else {
                list();
            }
            ExitCode::SUCCESS
        }
        Cmd::Bench { json } => {
            let all = cclab::bench::run_all();
            if json {
                // Top-level keys: the headline workload (the first); all of them in
                // `workloads`.
                let r = &all[0];
                println!(
                    "{}",
                    serde_json::json!({"wall_s": r.wall_s, "events_per_s": r.events_per_s, "packet_hops_per_s": r.packet_hops_per_s, "workloads": all})
                );
            } else {
                for r in &all {
                    println!(
                        "bench {}: {}, {} s simulated",
                        r.workload, r.about, r.sim_time_s
                    );
                    println!("  wall time      {:.3} s", r.wall_s);
                    println!(
                        "  events         {} ({:.2} M/s)",
                        r.events,
                        r.events_per_s / 1e6
                    );
                    println!(
                        "  packet-hops    {} ({:.2} M/s)",
                        r.packet_hops,
                        r.packet_hops_per_s / 1e6
                    );
                    println!("  goodput        {:.3} Gbit/s (all flows)", r.goodput_gbps);
                }
            }
            ExitCode::SUCCESS
        }
    }
}

fn run(
    file: &std::path::Path,
    out: Option<PathBuf>,
    seed: Option<u64>,
    sets: &[String],
    json: bool,
    pcap: &[String],
) -> ExitCode {
    let mut kv = Vec::new();
    for s in sets {
        match s.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => {
                kv.push((k.trim().to_string(), v.trim().to_string()))
            }
            _ => {
                eprintln!("error: --set '{s}': expected KEY=VALUE, e.g. --set tcp.cc=reno");
                return ExitCode::from(2);
            }
        }
    }
    if let Some(seed) = seed {
        kv.push(("sim.seed".to_string(), seed.to_string()));
    }
    let mut sc = match cclab::scenario::load_scenario(file, &kv) {
        Ok(sc) => sc,
        Err(errs) => {
            for e in &errs {
                eprintln!("error: {e}");
            }
            eprintln!(
                "{} error{} in {}; nothing was run",
                errs.len(),
                if errs.len() == 1 { "" } else { "s" },
                file.display()
            );
            return ExitCode::from(2);
        }
    };
    for name in pcap {
        if !sc.output.pcap.contains(name) {
            sc.output.pcap.push(name.clone());
        }
    }
    let dir = out.unwrap_or_else(|| PathBuf::from("out").join(&sc.name));
    let t0 = std::time::Instant::now();
    let result = match cclab::sim::run_to(&sc, &dir) {
        Ok(r) => r,
        Err(msg) => {
            eprintln!("error: {}: {msg}", file.display());
            return ExitCode::from(2);
        }
    };
    let perf = cclab::report::Perf {
        wall_s: t0.elapsed().as_secs_f64(),
        events: result.engine.events,
        packet_hops: result.engine.packet_hops,
    };
    if let Err(msg) = cclab::report::write_run(&dir, &result, &perf, sc.output.plots) {
        eprintln!("error: {msg}");
        return ExitCode::from(2);
    }
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&result).expect("results serialise")
        );
    } else {
        print!("{}", cclab::report::table(&result));
        println!(
            "\n{} events, {} packet-hops in {:.2} s wall ({:.2} M hops/s); results in {}",
            perf.events,
            perf.packet_hops,
            perf.wall_s,
            perf.packet_hops as f64 / perf.wall_s.max(1e-9) / 1e6,
            dir.display()
        );
    }
    ExitCode::SUCCESS
}

fn list() {
    use cclab::scenario::schema::Schema;
    println!("experiments (cclab reproduce NAME [--quick] [--json]):");
    for e in cclab::experiments::all() {
        println!("  {:16} [seed {}] {}", e.name, e.seed_doc, e.about);
    }
    // The first sentence of a component's own description.
    let first = |s: &Schema| -> String {
        let a = s.about;
        a.find(". ").map_or(a, |i| &a[..=i]).to_string()
    };
    let kinds = |tag: &str, s: &'static Schema| {
        if let Some(v) = s.variants() {
            for (name, vs) in v.kinds {
                println!("  {name:16} {}", first(vs));
            }
        } else {
            println!("  ({tag})");
        }
    };
    println!("\ntopologies ([topology] kind = …):");
    kinds("kind", &cclab::net::topology::TOPOLOGY);
    println!("\nqueue disciplines (queue = … in a link or queue table):");
    kinds("queue", &cclab::qdisc::QUEUE);
    println!(
        "\ncongestion controls ([tcp] cc = …): {}",
        cclab::cc::CC_NAMES.join(", ")
    );
    println!("\nevery scenario key: cclab list --keys; their meaning: docs/scenario.md");
}

fn reproduce(
    name: &str,
    quick: bool,
    json: bool,
    out: Option<PathBuf>,
    markdown: Option<PathBuf>,
    seed: u64,
    threads: usize,
) -> ExitCode {
    let exps: Vec<_> = if name == "all" {
        cclab::experiments::all()
    } else {
        match cclab::experiments::by_name(name) {
            Some(e) => vec![e],
            None => {
                let names: Vec<_> = cclab::experiments::all().iter().map(|e| e.name).collect();
                eprintln!(
                    "error: unknown experiment '{name}'; allowed: {}, all",
                    names.join(", ")
                );
                return ExitCode::from(2);
            }
        }
    };
    let opts = cclab::experiments::Options {
        quick,
        seed,
        threads,
    };
    let mut ok = true;
    let mut md = format!(
        "# Reproductions\n\nGenerated by `cclab reproduce {name}{} --seed {seed} --markdown …`; do not edit by hand.\nEach table puts the seed document's number beside the simulated one; the checks encode the seeds' claims with their tolerances.\n\n",
        if quick { " --quick" } else { "" }
    );
    for e in exps {
        let t0 = std::time::Instant::now();
        let r = (e.run)(&opts);
        let wall = t0.elapsed().as_secs_f64();
        ok &= r.passed();
        md.push_str(&r.markdown(&format!("Seed {}: {}.", e.seed_doc, e.about)));
        if json {
            println!("{}", serde_json::to_string(&r).expect("report serialises"));
        } else {
            print!("{}", r.render());
            println!("({:.2} s wall)\n", wall);
        }
        if let Some(dir) = &out {
            if let Err(msg) = write_report(dir, &r) {
                eprintln!("error: {msg}");
                return ExitCode::from(2);
            }
        }
    }
    if let Some(path) = &markdown {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            if let Err(e) = std::fs::create_dir_all(parent) {
                eprintln!("error: cannot create {}: {e}", parent.display());
                return ExitCode::from(2);
            }
        }
        if let Err(msg) = cclab::report::write_atomic(path, md.as_bytes()) {
            eprintln!("error: {msg}");
            return ExitCode::from(2);
        }
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn write_report(dir: &std::path::Path, r: &cclab::experiments::Report) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let base = dir.join(&r.experiment);
    let write = |p: PathBuf, s: &[u8]| {
        std::fs::write(&p, s).map_err(|e| format!("cannot write {}: {e}", p.display()))
    };
    write(
        base.with_extension("json"),
        serde_json::to_string_pretty(r).unwrap().as_bytes(),
    )?;
    write(base.with_extension("txt"), r.render().as_bytes())?;
    for (name, svg) in &r.plots {
        write(dir.join(name), svg.as_bytes())?;
    }
    Ok(())
}
