#!/usr/bin/env python3
"""bench/ab.py — is build B faster than build A? Two cclab binaries timed on the same work,
interleaved, so that the machine's drift (this 2-core machine's speed moved by 2x within an
hour, and the second of two back-to-back runs was up to 20% faster than the first) falls on
both alike; the figure is the median of the per-round ratios A/B (above 1: B is faster),
with a sign test of how many rounds fall each side of 1 (p = the chance of so uneven a split
if neither build were faster: 9 of 10 rounds gives 0.021, 7 of 10 gives 0.344).

Usage:
  bench/ab.py [--rounds N] [--mode alternate|pair] [--gate PCT] [--min-probe G]
              [--cores C0,C1] [--instructions]
              A B [SCENARIO [KEY=VALUE ...]]

A and B are cclab binaries (build an older commit with `git worktree add /tmp/old REV &&
cargo build --release -p cclab-cli --manifest-path /tmp/old/Cargo.toml`, then pass
/tmp/old/target/release/cclab). Without SCENARIO, each round runs `cclab bench --json` and
compares each workload's event-loop wall time; with one, it runs `cclab run SCENARIO --set
KEY=VALUE ...` and compares `perf.json`'s `wall_s` (the event loop), and checks that the
two builds wrote the same files (every CSV, Parquet and JSON file but `perf.json`, with
`summary.json`'s and `run.json`'s git revision and command line left out): a speed change
must not change a result. Files that differ only in the engine's event counts (`events`)
are named but pass: a change to how the engine schedules its work may change how many
events it takes, not what it simulates.

Modes:
  alternate  (default) one at a time on the first core, the order A B B A A B B A ...
  pair       A and B at the same time, each pinned to one of two cores, swapping cores
             every round: both see the machine at the same moment, but not the same core
             (the development VM's two cores gave the same binary 0.6-1.6x each other's
             speed at once, as their other hyperthreads' guests came and went).

--gate PCT   (default 5) run bench/coreprobe.rs (compiled with `rustc -O` into the temporary
             directory) on the timing core before and after every run and keep a round only
             if every probe of it is within PCT per cent of the others (in pair mode, each
             core's before and after, the cores apart); a round that fails is run again,
             up to four times as many attempts as rounds in all. On a virtual machine the
             core's other hyperthread may belong to another guest, whose work takes a
             share of the core in steps (the probe's rate fell from about 10 to 7.3-8.3
             G/s on the development VM, and dctcp10 slowed from 0.35 to 0.56-0.60 s with
             it, the clock unchanged): rounds that straddle such a step are what made a
             few per cent unmeasurable. `--gate 0` turns it off.

--min-probe G  with the gate, also reject a round whose probes fall below G (G instructions
             per second): only rounds with the core to itself count (on the development VM
             the probe gave 9.9-11.2 then and 7.3-8.3 with another guest on the core; the
             first state held in one round in six to eight). Rejected rounds are run again,
             up to twenty times as many attempts as rounds. Default 0: no floor.

--instructions  also run each build once under valgrind's callgrind (it must be installed)
             and print the instructions it executes, the whole process and the event loop
             (`Sim::step_until` with all it calls), and their ratios B/A: a count that does
             not drift with the machine, where a change of a few percent in wall time is
             within the drift. `--rounds 0 --instructions` counts only. Under valgrind a
             run takes some 30 times as long (`cclab bench`: about 20 s a build on the
             2-core development machine).

It writes only into a temporary directory of its own, removed at the end. Exit status: 0,
1 if the two builds' outputs differ, 2 on bad arguments.
"""

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile


def fail(msg):
    print(f"error: {msg}", file=sys.stderr)
    sys.exit(2)


def command(binary, scenario, sets, out):
    if scenario is None:
        return [binary, "bench", "--json"]
    cmd = [binary, "run", scenario, "--out", out, "--force"]
    for kv in sets:
        cmd += ["--set", kv]
    return cmd


def sign_test(above, below):
    """Two-sided sign test: the chance of a split at least this uneven between rounds
    above and below 1 if neither build were faster (ties left out)."""
    n = above + below
    if n == 0:
        return 1.0
    k = max(above, below)
    tail = sum(math.comb(n, i) for i in range(k, n + 1)) / 2 ** n
    return min(1.0, 2 * tail)


# Every run started, so that none outlives the script (one that failed ends the script
# while its pair may still be running, and would write into the removed directory).
started = []


def start(cmd, core):
    if core is not None:
        cmd = ["taskset", "-c", str(core)] + cmd
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    started.append(proc)
    return proc


def finish(proc, out, scenario):
    stdout, stderr = proc.communicate()
    if proc.returncode != 0:
        fail(f"{' '.join(proc.args)} exited with {proc.returncode}:\n{stderr.strip()}")
    if scenario is None:
        return {w["workload"]: w["wall_s"] for w in json.loads(stdout)["workloads"]}
    with open(os.path.join(out, "perf.json")) as f:
        return {"wall_s": json.load(f)["wall_s"]}


def without_events(d):
    """`d` with every "events" key (the engine's event count) left out, at any depth."""
    if isinstance(d, dict):
        return {k: without_events(v) for k, v in d.items() if k != "events"}
    if isinstance(d, list):
        return [without_events(v) for v in d]
    return d


def comparable(path, events=True):
    """A result file's content without what names the build (git revision, command line);
    with `events` false, also without the event counts."""
    name = os.path.basename(path)
    with open(path, "rb") as f:
        data = f.read()
    if name in ("summary.json", "run.json"):
        d = json.loads(data)
        for key in ("git", "command", "argv"):
            d.pop(key, None)
        if not events:
            d = without_events(d)
        return json.dumps(d, sort_keys=True).encode()
    return data


def same_outputs(a, b):
    """The result files that differ, and those that differ only in their event counts (a
    change to how the engine schedules work, not to what it simulates)."""
    names = sorted(set(os.listdir(a)) | set(os.listdir(b)))
    differ, counts = [], []
    for n in names:
        if n == "perf.json" or n.startswith("."):
            continue
        pa, pb = os.path.join(a, n), os.path.join(b, n)
        if not (os.path.isfile(pa) and os.path.isfile(pb)):
            differ.append(f"{n} (only in one)")
        elif comparable(pa) != comparable(pb):
            same = comparable(pa, events=False) == comparable(pb, events=False)
            (counts if same else differ).append(n)
    return differ, counts


def callgrind_totals(path):
    """(whole process, event loop) instructions of one callgrind output file: its `totals`
    or `summary` line, and the inclusive count of `cclab::sim::Sim::step_until` as
    `callgrind_annotate` gives it (0 if the file has no event loop, as a parent process)."""
    total = 0
    with open(path) as f:
        for line in f:
            if line.startswith(("totals:", "summary:")):
                total = max(total, int(line.split()[1]))
    ann = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", path],
                         capture_output=True, text=True)
    if ann.returncode != 0:
        fail(f"callgrind_annotate {path} exited with {ann.returncode}: {ann.stderr.strip()}")
    loop = 0
    for line in ann.stdout.splitlines():
        # "  248,918,352 (98.78%)  /…/sim.rs:cclab::sim::Sim::step_until [/…/cclab]"
        fields = line.split()
        if (len(fields) >= 3 and fields[-2].endswith(":cclab::sim::Sim::step_until")
                and fields[0].replace(",", "").isdigit()):
            loop = max(loop, int(fields[0].replace(",", "")))
    return total, loop


def build_probe(tmp):
    """bench/coreprobe.rs compiled into `tmp`; the path of the program."""
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "coreprobe.rs")
    exe = os.path.join(tmp, "coreprobe")
    if shutil.which("rustc") is None:
        fail("--gate needs rustc to build bench/coreprobe.rs (or pass --gate 0)")
    got = subprocess.run(["rustc", "-O", src, "-o", exe], capture_output=True, text=True)
    if got.returncode != 0:
        fail(f"rustc -O {src} exited with {got.returncode}: {got.stderr.strip()}")
    return exe


def probe(exe, core):
    """The core probe's rate (G instructions per second) on `core`."""
    cmd = [exe] if core is None else ["taskset", "-c", str(core), exe]
    got = subprocess.run(cmd, capture_output=True, text=True)
    if got.returncode != 0:
        fail(f"{' '.join(cmd)} exited with {got.returncode}: {got.stderr.strip()}")
    return float(got.stdout.split()[0])


def steady(rates, gate, floor):
    """Every probe of a round within `gate` per cent of the others, and none below `floor`."""
    return max(rates) <= min(rates) * (1 + gate / 100) and min(rates) >= floor


def count_instructions(binary, scenario, sets, out, tmp, tag):
    """Run `binary` once under callgrind (children traced: `cclab run` may re-execute
    itself) and return (whole process, event loop) of the process that ran the event loop
    (the one with the most instructions)."""
    prefix = os.path.join(tmp, f"cg-{tag}")
    cmd = ["valgrind", "--tool=callgrind", "--trace-children=yes",
           f"--callgrind-out-file={prefix}.%p"] + command(binary, scenario, sets, out)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        fail(f"{' '.join(cmd)} exited with {proc.returncode}:\n{proc.stderr.strip()[-2000:]}")
    files = [os.path.join(tmp, n) for n in os.listdir(tmp) if n.startswith(f"cg-{tag}.")]
    if not files:
        fail(f"callgrind wrote no output for {binary}")
    return max(callgrind_totals(f) for f in files)


def main():
    ap = argparse.ArgumentParser(
        description="Interleaved A/B timing of two cclab builds (see the file's header).")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--mode", choices=("pair", "alternate"), default="alternate")
    ap.add_argument("--cores", default="0,1", help="two core numbers (default 0,1)")
    ap.add_argument("--gate", type=float, default=5.0,
                    help="keep a round only if the core probe stays within this many per "
                         "cent around it (0: off)")
    ap.add_argument("--min-probe", type=float, default=0.0,
                    help="with the gate, keep only rounds whose probes are all at least this")
    ap.add_argument("--instructions", action="store_true",
                    help="also count each build's instructions under valgrind's callgrind")
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("scenario", nargs="?")
    ap.add_argument("sets", nargs="*", metavar="KEY=VALUE")
    args = ap.parse_args()
    if args.rounds < 1 and not (args.rounds == 0 and args.instructions):
        fail(f"--rounds must be at least 1, or 0 with --instructions (got {args.rounds})")
    if not (0 <= args.gate <= 100):
        fail(f"--gate takes a percentage from 0 to 100 (got {args.gate})")
    if not (0 <= args.min_probe < 1000) or (args.min_probe > 0 and args.gate == 0):
        fail(f"--min-probe takes a rate from 0 to 1000 G/s and needs the gate on "
             f"(got {args.min_probe} with --gate {args.gate:g})")
    if args.instructions:
        for tool in ("valgrind", "callgrind_annotate"):
            if shutil.which(tool) is None:
                fail(f"--instructions needs {tool} (apt-get install valgrind)")
    for b in (args.a, args.b):
        if not (os.path.isfile(b) and os.access(b, os.X_OK)):
            fail(f"not an executable file: {b}")
    if args.scenario is not None and not os.path.exists(args.scenario):
        fail(f"no such scenario: {args.scenario}")
    for kv in args.sets:
        if "=" not in kv:
            fail(f"expected KEY=VALUE after the scenario, got '{kv}'")
    try:
        cores = [int(c) for c in args.cores.split(",")]
    except ValueError:
        cores = []
    if len(cores) != 2 or cores[0] == cores[1]:
        fail(f"--cores takes two different core numbers, like 0,1 (got '{args.cores}')")
    pin = shutil.which("taskset") is not None
    if not pin:
        print("note: taskset not found; runs are not pinned to cores", file=sys.stderr)

    tmp = tempfile.mkdtemp(prefix="cclab-ab-")
    try:
        outs = {"A": os.path.join(tmp, "A"), "B": os.path.join(tmp, "B")}
        bins = {"A": args.a, "B": args.b}
        walls = {"A": [], "B": []}
        print(f"A = {args.a}\nB = {args.b}\nwork: "
              + (f"cclab run {args.scenario} {' '.join(args.sets)}".strip()
                 if args.scenario else "cclab bench --json")
              + f"\nmode: {args.mode}, {args.rounds} rounds"
              + (f", core probe gate {args.gate:g}%" if args.gate > 0 else "")
              + (f", probe at least {args.min_probe:g} G/s" if args.min_probe > 0 else "")
              + "\n")
        exe = build_probe(tmp) if args.gate > 0 and args.rounds > 0 else None
        core = {c: (c if pin else None) for c in cores}
        r, attempts, rejected = 0, 0, 0
        tries = (20 if args.min_probe > 0 else 4) * args.rounds
        while r < args.rounds and attempts < tries:
            attempts += 1
            rates = []
            if args.mode == "pair":
                ca, cb = (cores[0], cores[1]) if r % 2 == 0 else (cores[1], cores[0])
                if exe:
                    rates += [probe(exe, core[ca]), probe(exe, core[cb])]
                pa = start(command(bins["A"], args.scenario, args.sets, outs["A"]), core[ca])
                pb = start(command(bins["B"], args.scenario, args.sets, outs["B"]), core[cb])
                got = {"A": finish(pa, outs["A"], args.scenario),
                       "B": finish(pb, outs["B"], args.scenario)}
                if exe:
                    rates += [probe(exe, core[ca]), probe(exe, core[cb])]
                    # Each core against itself: the two cores' shares differ (on the
                    # development VM by up to 1.3x at the same moment), which swapping
                    # them every round evens out.
                    steadies = (steady(rates[0::2], args.gate, args.min_probe)
                                and steady(rates[1::2], args.gate, args.min_probe))
                note = f"A on {ca}, B on {cb}"
            else:
                order = "AB" if r % 2 == 0 else "BA"
                got = {}
                for x in order:
                    if exe:
                        rates.append(probe(exe, core[cores[0]]))
                    p = start(command(bins[x], args.scenario, args.sets, outs[x]),
                              core[cores[0]])
                    got[x] = finish(p, outs[x], args.scenario)
                if exe:
                    rates.append(probe(exe, core[cores[0]]))
                    steadies = steady(rates, args.gate, args.min_probe)
                note = f"order {order[0]} {order[1]}"
            cells = "  ".join(f"{k} {got['A'][k]:.4f}/{got['B'][k]:.4f} s = "
                              f"{got['A'][k] / got['B'][k]:.3f}" for k in got["A"])
            if rates:
                note += "; probe " + " ".join(f"{x:.2f}" for x in rates)
            if exe and not steadies:
                rejected += 1
                print(f"rejected  {cells}  ({note}: the core's share moved)", flush=True)
                continue
            r += 1
            walls["A"].append(got["A"])
            walls["B"].append(got["B"])
            print(f"round {r:2}  {cells}  ({note})", flush=True)
        if exe:
            floor = f", at least {args.min_probe:g} G/s" if args.min_probe > 0 else ""
            stop = f"; stopped after {attempts} attempts" if r < args.rounds else ""
            print(f"\n{r} rounds kept, {rejected} rejected by the core probe (gate "
                  f"{args.gate:g}%{floor}){stop}")
        print()
        for k in walls["A"][0] if walls["A"] else []:
            a = [w[k] for w in walls["A"]]
            b = [w[k] for w in walls["B"]]
            ratios = sorted(x / y for x, y in zip(a, b))
            above = sum(x > 1 for x in ratios)
            below = sum(x < 1 for x in ratios)
            print(f"{k}: median wall A {statistics.median(a):.4f} s, B "
                  f"{statistics.median(b):.4f} s; per-round A/B median "
                  f"{statistics.median(ratios):.3f} (range {ratios[0]:.3f}-{ratios[-1]:.3f}, "
                  f"{above} of {len(ratios)} above 1; sign test p = "
                  f"{sign_test(above, below):.3f})")
        if args.instructions:
            got = {x: count_instructions(bins[x], args.scenario, args.sets, outs[x], tmp, x)
                   for x in "AB"}
            (ta, la), (tb, lb) = got["A"], got["B"]
            def loop(n):
                return f"{n:,}" if n else "(no Sim::step_until: an older build)"
            print(f"instructions (valgrind --tool=callgrind, one run each): whole process A "
                  f"{ta:,}, B {tb:,}, B/A {tb / ta:.4f}; event loop A {loop(la)}, B {loop(lb)}"
                  + (f", B/A {lb / la:.4f}" if la and lb else ""))
        if args.scenario is not None:
            differ, counts = same_outputs(outs["A"], outs["B"])
            if differ:
                print(f"\nOUTPUTS DIFFER: {', '.join(differ)}")
                return 1
            print("\noutputs identical (every file but perf.json; git revision and command "
                  "line left out)"
                  + (f"; event counts differ in {', '.join(counts)}" if counts else ""))
        return 0
    finally:
        for proc in started:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
