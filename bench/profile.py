#!/usr/bin/env python3
"""bench/profile.py — where `cclab bench`'s time goes, for one or more cclab builds, side by
side: each build runs `cclab bench --json` under `perf record` (the CPU clock, 10,000
samples a second) several times, the builds taking turns (A B A B ...) so the machine's
drift falls on all alike, and the samples are summed by function and by layer, in
nanoseconds per packet-hop (a sample is 1/frequency of a second; packet-hops are what the
bench's JSON reports, both workloads together).

Usage:
  bench/profile.py [--rounds N] [--freq HZ] [--core C] [--top K] BIN [BIN ...]

BIN are cclab binaries (build an older commit with `git worktree add /tmp/old REV &&
cargo build --release -p cclab-cli --manifest-path /tmp/old/Cargo.toml`). Needs `perf`
(`apt-get install linux-perf`) and debug symbols in the binaries (the release profile
keeps them). Writes only into a temporary directory of its own, removed at the end.

The layers are by function name, and a function counts whole where the compiler inlined
others into it: the event loop (`Sim::run_until` / `Sim::step_until`) holds the event
queue's push and pop and the arrival at a link's far end; `Network::enqueue` holds the
qdisc. Between builds that inline differently, compare the layers, not single functions.
Exit status: 0, 2 on bad arguments or a failed run.
"""

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

# First match wins; the rest is "other".
LAYERS = [
    ("event loop and event queue", r"run_until|step_until|EventQueue|Buckets|pop_min|Heap<|refill"),
    ("network: forward, enqueue, transmit", r"net::forward|routing|Network>::"),
    ("TCP, congestion control, RTT", r"tcp::|cc::|hdrhistogram|Rtt|binary_search_by"),
    ("simulator: deliver, flush, copies", r"Sim::deliver|Sim::flush|memmove|memcpy"),
]
OTHER = "other (std out of line, kernel, start-up)"


def fail(msg):
    print(f"error: {msg}", file=sys.stderr)
    sys.exit(2)


def record(binary, core, freq, data):
    cmd = ["perf", "record", "-q", "-e", "cpu-clock", "-F", str(freq), "-o", data, "--",
           binary, "bench", "--json"]
    if core is not None:
        cmd = ["taskset", "-c", str(core)] + cmd
    # The huge-pages re-exec would leave perf recording the first process only.
    env = dict(os.environ, CCLAB_HUGE_PAGES="0")
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        fail(f"{' '.join(cmd)} exited {r.returncode}: {r.stderr.strip()[-400:]}")
    bench = json.loads(r.stdout)
    return sum(w["packet_hops"] for w in bench["workloads"])


def samples(data):
    r = subprocess.run(["perf", "report", "-i", data, "--no-children", "-n", "--sort", "symbol",
                        "--stdio"], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"perf report on {data}: {r.stderr.strip()[-400:]}")
    out = collections.Counter()
    for line in r.stdout.splitlines():
        m = re.match(r"\s*[\d.]+%\s+(\d+)\s+\[.\]\s+(.*?)(\s+-\s+-)?\s*$", line)
        if m:
            out[m.group(2)] += int(m.group(1))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--freq", type=int, default=10000)
    ap.add_argument("--core", type=int, default=1, help="pin to this core (-1: do not pin)")
    ap.add_argument("--top", type=int, default=12, help="functions listed per build")
    ap.add_argument("bins", nargs="+")
    a = ap.parse_args()
    if a.rounds < 1 or a.freq < 1:
        fail("--rounds and --freq must be positive")
    if shutil.which("perf") is None:
        fail("perf is not installed (apt-get install linux-perf)")
    for b in a.bins:
        if not os.access(b, os.X_OK):
            fail(f"{b}: not an executable")
    core = None if a.core < 0 else a.core
    tmp = tempfile.mkdtemp(prefix="cclab-profile-")
    try:
        by_fn = [collections.Counter() for _ in a.bins]
        hops = [0] * len(a.bins)
        for r in range(a.rounds):
            for i, b in enumerate(a.bins):
                data = os.path.join(tmp, f"{i}-{r}.data")
                hops[i] += record(b, core, a.freq, data)
                by_fn[i].update(samples(data))
                os.remove(data)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print(f"`cclab bench` under perf record -e cpu-clock -F {a.freq}, {a.rounds} runs per build"
          f" in turn{'' if core is None else f' on core {core}'}; ns per packet-hop (share)")
    for i, b in enumerate(a.bins):
        ns = lambda n: n * 1e9 / a.freq / hops[i]
        total = sum(by_fn[i].values())
        layer = collections.Counter()
        for fn, n in by_fn[i].items():
            name = next((l for l, rx in LAYERS if re.search(rx, fn)), OTHER)
            layer[name] += n
        print(f"\n{b}: {ns(total):.1f} ns per packet-hop ({total} samples)")
        for name in [l for l, _ in LAYERS] + [OTHER]:
            print(f"  {name:44s} {ns(layer[name]):6.1f} ns  {100 * layer[name] / total:5.1f}%")
        for fn, n in by_fn[i].most_common(a.top):
            print(f"      {ns(n):6.1f} ns  {100 * n / total:5.1f}%  {fn[:90]}")


if __name__ == "__main__":
    main()
