//! `cclab` — the command line. Thin: every command is a library call; this file only
//! parses arguments, prints, and maps outcomes to exit codes (0 ok, 1 failed checks,
//! 2 bad input).

#[macro_use]
mod term;
mod huge_pages;
mod reproduce;
mod run;
mod sweep;

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
        /// The scenario (TOML), or a folder a run wrote (its run.json holds the scenario).
        file: PathBuf,
        /// Output directory (default: out/<scenario name>-<run id>, the run id's first 8 hex
        /// digits: other inputs, another folder).
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
        /// Write into an output folder that holds files cclab did not write (they are never
        /// replaced).
        #[arg(long)]
        force: bool,
        /// No progress bar.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Reproduce a built-in experiment from the seed documents (`cclab list` names them).
    Reproduce(reproduce::Args),
    /// Run every point of a scenario's [sweep] (its grid of values × its seeds) on all
    /// cores and write one table per kind (runs, flows, queues, …) with a column per swept
    /// key, in CSV and Parquet. Resumable: points already on disk are not run again.
    Sweep {
        /// The scenario with a [sweep] table.
        file: PathBuf,
        /// Output folder (default: out/<scenario name>-sweep-<sweep id>, 8 hex digits of a
        /// hash of the file).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Points run at once (0 = one per core).
        #[arg(long, default_value_t = 0)]
        jobs: usize,
        /// No progress bar.
        #[arg(long, short)]
        quiet: bool,
    },
    /// List the built-in experiments, topologies, queue disciplines and congestion
    /// controls (with --keys: every scenario key, its type and default).
    List {
        /// Print every scenario key path with its type and default.
        #[arg(long)]
        keys: bool,
    },
    /// Run packetdrill scripts (files, or folders searched for *.pkt) against cclab's TCP
    /// sender: each script passes, fails (its line and the first mismatch) or is not
    /// applicable (the feature cclab does not model). Exit status 1 if any fails, 2 if one
    /// cannot be read or parsed. docs/packetdrill.md describes what is supported.
    Packetdrill {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Counts per area (the script's folder, or the kernel's tcp_<area>_ prefix), after
        /// the scripts that did not pass.
        #[arg(long)]
        summary: bool,
    },
    /// Time fixed workloads: 16 CUBIC flows and 10 DCTCP flows (the ns-3/htsim comparison) on a 10 Gbit/s dumbbell, 1 s simulated each.
    Bench {
        #[arg(long)]
        json: bool,
        /// Also the data-center cases: web search at 50% load with DCTCP on a k = 8
        /// fat-tree for 1 s and a k = 16 fat-tree for 20 ms (about 2 minutes and 130 MiB
        /// on the 2-core development machine).
        #[arg(long)]
        scale: bool,
        /// Also the dctcp10 dumbbell with 10, 100 and 1,000 senders, run in turn for
        /// --rounds rounds (median of each), and the share of the 10-sender packet-hops/s
        /// the larger ones keep (7 s with 5 rounds on the 2-core development machine).
        #[arg(long)]
        senders: bool,
        /// Rounds of --senders.
        #[arg(long, default_value_t = 5, requires = "senders", value_parser = clap::value_parser!(u32).range(1..=1000))]
        rounds: u32,
    },
}

/// Restore the default action of SIGPIPE (Rust ignores it), so that `cclab run … | head`
/// ends quietly when `head` stops reading, as command-line tools do, instead of failing
/// on the next write.
#[cfg(unix)]
fn default_sigpipe() {
    extern "C" {
        fn signal(signum: i32, handler: usize) -> usize;
    }
    const SIGPIPE: i32 = 13; // Linux, the BSDs and macOS
    const SIG_DFL: usize = 0;
    // SAFETY: setting a signal's disposition to the default, before any thread starts.
    unsafe {
        signal(SIGPIPE, SIG_DFL);
    }
}

fn main() -> ExitCode {
    // First: it may start this program again (huge pages for the heap, `huge_pages.rs`).
    huge_pages::reexec();
    #[cfg(unix)]
    default_sigpipe();
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            // `--help`/`--version` print to stdout: a failure there is a failed print.
            let code = if e.use_stderr() { 2 } else { 0 };
            return match e.print() {
                Ok(()) => ExitCode::from(code),
                Err(_) if e.use_stderr() => ExitCode::from(2),
                Err(err) => term::Stop::from(err).code(),
            };
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
            force,
            quiet,
        } => run::run(run::RunArgs {
            file: &file,
            out,
            seed,
            sets: &sets,
            json,
            pcap: &pcap,
            force,
            quiet,
        }),
        Cmd::Reproduce(args) => reproduce::reproduce(args),
        Cmd::Sweep {
            file,
            out,
            jobs,
            quiet,
        } => sweep::sweep(&file, out, jobs, quiet),
        Cmd::List { keys } => term::finish(if keys {
            out!("{}", cclab::scenario::doc::key_list()).map(|_| ExitCode::SUCCESS)
        } else {
            list().map(|_| ExitCode::SUCCESS)
        }),
        Cmd::Bench {
            json,
            scale,
            senders,
            rounds,
        } => term::finish(bench(json, scale, senders, rounds)),
        Cmd::Packetdrill { paths, summary } => term::finish(packetdrill(&paths, summary)),
    }
}

/// `cclab packetdrill`.
fn packetdrill(paths: &[PathBuf], summary: bool) -> Result<ExitCode, term::Stop> {
    use cclab::packetdrill::{self as pd, Verdict};
    let files = match pd::collect(paths) {
        Ok(f) => f,
        Err(e) => {
            errln!("error: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let mut results = Vec::with_capacity(files.len());
    for f in files {
        let v = pd::run_file(&f);
        if !summary || v != Verdict::Pass {
            outln!("{}: {v}", f.display())?;
        }
        results.push((f, v));
    }
    if summary {
        outln!("")?;
        outln!(
            "{:<22} {:>5} {:>5} {:>5} {:>5} {:>5}",
            "area",
            "total",
            "pass",
            "fail",
            "n/a",
            "error"
        )?;
        let mut tot = [0usize; 4];
        for (area, c) in pd::summary(&results) {
            outln!(
                "{:<22} {:>5} {:>5} {:>5} {:>5} {:>5}",
                area,
                c.iter().sum::<usize>(),
                c[0],
                c[1],
                c[2],
                c[3]
            )?;
            for i in 0..4 {
                tot[i] += c[i];
            }
        }
        outln!(
            "{:<22} {:>5} {:>5} {:>5} {:>5} {:>5}",
            "all",
            tot.iter().sum::<usize>(),
            tot[0],
            tot[1],
            tot[2],
            tot[3]
        )?;
    }
    let code = if results.iter().any(|(_, v)| matches!(v, Verdict::Error(_))) {
        2
    } else if results
        .iter()
        .any(|(_, v)| matches!(v, Verdict::Fail { .. }))
    {
        1
    } else {
        0
    };
    Ok(ExitCode::from(code))
}

/// `cclab bench`.
fn bench(json: bool, scale: bool, senders: bool, rounds: u32) -> Result<ExitCode, term::Stop> {
    let mut all = cclab::bench::run_all();
    if scale {
        all.extend(cclab::bench::run_scale());
    }
    let senders = senders.then(|| cclab::bench::run_senders(rounds as usize));
    if let Some(s) = &senders {
        all.extend(s.results.iter().cloned());
    }
    if json {
        // Top-level keys: the headline workload (the first); all of them in
        // `workloads`.
        let r = &all[0];
        let mut v = serde_json::json!({"wall_s": r.wall_s, "events_per_s": r.events_per_s, "packet_hops_per_s": r.packet_hops_per_s, "workloads": all});
        if let Some(s) = senders {
            v["senders"] = serde_json::json!({"rounds": s.rounds, "senders": cclab::bench::SENDERS, "keep": s.keep});
        }
        outln!("{v}")?;
    } else {
        for r in &all {
            outln!(
                "bench {}: {}, {} s simulated",
                r.workload,
                r.about,
                r.sim_time_s
            )?;
            outln!("  wall time      {:.3} s", r.wall_s)?;
            outln!(
                "  events         {} ({:.2} M/s)",
                r.events,
                r.events_per_s / 1e6
            )?;
            outln!(
                "  packet-hops    {} ({:.2} M/s)",
                r.packet_hops,
                r.packet_hops_per_s / 1e6
            )?;
            outln!("  goodput        {:.3} Gbit/s (all flows)", r.goodput_gbps)?;
            if let Some(m) = r.peak_rss_mib {
                let huge = r
                    .huge_pages_mib
                    .map(|h| format!(" ({h:.0} MiB in huge pages)"))
                    .unwrap_or_default();
                outln!("  peak RSS       {m:.0} MiB{huge}")?;
            }
        }
        if let Some(s) = &senders {
            outln!(
                        "senders: 100 keep {:.0}%, 1,000 keep {:.0}% of the 10-sender packet-hops/s (medians of the ratios of {} rounds, each paired with its round's 10-sender run)",
                        100.0 * s.keep[1],
                        100.0 * s.keep[2],
                        s.rounds
                    )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn list() -> Result<(), term::Stop> {
    use cclab::schema::Schema;
    outln!("experiments (cclab reproduce NAME [--quick] [--json]):")?;
    for e in cclab::experiments::all() {
        outln!("  {:16} [seed {}] {}", e.name, e.seed_doc, e.about)?;
    }
    // The first sentence of a component's own description.
    let first = |s: &Schema| -> String {
        let a = s.about;
        a.find(". ").map_or(a, |i| &a[..=i]).to_string()
    };
    let kinds = |tag: &str, s: &'static Schema| -> Result<(), term::Stop> {
        if let Some(v) = s.variants() {
            for (name, vs) in v.kinds {
                outln!("  {name:16} {}", first(vs))?;
            }
        } else {
            outln!("  ({tag})")?;
        }
        Ok(())
    };
    outln!("\ntopologies ([topology] kind = …):")?;
    kinds("kind", &cclab::net::topology::TOPOLOGY)?;
    outln!("\nqueue disciplines (queue = … in a link or queue table):")?;
    kinds("queue", &cclab::qdisc::QUEUE)?;
    outln!("\ntraffic ([[NAME]] tables):")?;
    for k in cclab::app::TRAFFIC.keys {
        outln!("  {:16} {}", k.name, k.meaning)?;
    }
    outln!(
        "\ncongestion controls ([tcp] cc = …): {}",
        cclab::cc::CC_NAMES.join(", ")
    )?;
    outln!("\nevery scenario key: cclab list --keys; their meaning: docs/scenario.md")
}
