#!/usr/bin/env bash
# bench/race.sh — cclab against ns-3 (and htsim) on the same work: `cclab bench`'s dctcp10
# case (10 DCTCP flows over a 10 Gbit/s dumbbell, ECN marking at K = 65 packets, 1 s
# simulated), run by cclab from bench/dctcp10.toml and by ns-3 3.37 (Debian's libns3-dev)
# from bench/ns3/dctcp10.cc; or the incast32 case (32 DCTCP flows into one receiver through
# one switch, the same links and marking; bench/incast32.toml and dctcp10.cc --incast=32);
# or dctcp10-ackall: dctcp10 with an ACK for every data segment in all three simulators
# (cclab `--set tcp.delayed_ack=false`, ns-3 `--delAckCount=1`), the work htsim's TCP sink
# does, raced by cclab, ns-3 and htsim (our own htsim program, bench/htsim/dctcp10.cpp,
# built by bench/htsim/build.sh against htsim at a pinned commit).
#
# Usage: bench/race.sh [ROUNDS] [CASE]  (ROUNDS default 3, or ROUNDS=5 bench/race.sh;
#                                        CASE dctcp10 (default), incast32 or dctcp10-ackall)
#
# It builds every contender (cclab: cargo build --release -p cclab-cli; ns-3: g++ -O2
# against the Debian libraries; htsim: its own Makefile's -O3), then runs them
# interleaved, ROUNDS times each (the order rotates from round to round), and prints per
# round and as medians: the core probe's rate before and after each run (bench/coreprobe.rs,
# built with rustc -O; on a VM the core's share moves with other guests' work, and a
# round whose simulators saw different rates ran on different machines), the wall time
# of each simulator's event loop (cclab: perf.json
# `wall_s`; ns-3: Simulator::Run() on a steady clock; htsim: its doNextEvent() loop on a
# steady clock) and of its whole process, packet-hops and packet-hops/s, the ratios
# other_wall / cclab_wall; then the simulators' results side by side, flagging any that
# differ from cclab's by more than 5% (bench/ns3/README.md and bench/htsim/README.md
# explain the model differences, with measurements).
# Timing is of the same runs that produce the results. For dctcp10 each round also runs
# `cclab bench --json` and checks that the TOML file reproduces dctcp10's event and
# packet-hop counts exactly (and reports bench's in-process wall time for reference);
# incast32 and dctcp10-ackall are not `cclab bench` cases: the TOML file (with its --set)
# is the case.
#
# PGO=1 bench/race.sh races the profile-guided build of bench/pgo.sh (target/pgo/cclab;
# needs `rustup component add llvm-tools`) instead of the plain `cargo build --release`.
#
# Needs: cargo, g++, python3, and `apt-get install ns3 libns3-dev` (Debian 12: ns-3 3.37);
# for dctcp10-ackall also git and make (htsim is cloned from GitHub into target/htsim/;
# HTSIM_SRC=DIR uses a checkout you have). Files go to target/race/ (RACE_OUT to change).
# Set CARGO_BUILD_JOBS=1 on a shared box.

set -euo pipefail

rounds=${1:-${ROUNDS:-3}}
case $rounds in '' | *[!0-9]* | 0)
    echo "usage: $0 [ROUNDS]  (a positive integer; got '$rounds')" >&2
    exit 2
    ;;
esac

case=${2:-dctcp10}
cclabargs=()
htsim=0
case $case in
dctcp10) ns3args=() toml=dctcp10 ;;
incast32) ns3args=(--incast=32) toml=incast32 ;;
dctcp10-ackall)
    ns3args=(--delAckCount=1) toml=dctcp10 htsim=1
    cclabargs=(--set tcp.delayed_ack=false)
    ;;
*)
    echo "usage: $0 [ROUNDS] [CASE]  (CASE is dctcp10, incast32 or dctcp10-ackall; got '$case')" >&2
    exit 2
    ;;
esac

if [ "$rounds" -lt 3 ]; then
    echo "note: $rounds round(s): fewer than 3 makes weak medians (fine for a quick check)" >&2
fi

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=${RACE_OUT:-$root/target/race}
mkdir -p "$out"

echo "== build" >&2
case ${PGO:-0} in
0)
    cargo build --release -p cclab-cli >&2
    cclab=$root/target/release/cclab
    build="cargo build --release"
    ;;
1)
    cclab=$(bench/pgo.sh)
    build="bench/pgo.sh (profile-guided)"
    ;;
*)
    echo "PGO must be 0 or 1 (got '$PGO')" >&2
    exit 2
    ;;
esac

# Debian's ns3-*.pc files give broken Cflags ("-I/usr\;"), so the flags are written out.
if [ ! -f /usr/include/ns3/tcp-dctcp.h ]; then
    echo "error: ns-3's headers are missing: apt-get install ns3 libns3-dev" >&2
    exit 2
fi
ns3bin=$out/dctcp10-ns3
src=bench/ns3/dctcp10.cc
if [ ! -x "$ns3bin" ] || [ "$src" -nt "$ns3bin" ]; then
    echo "g++ -O2 $src" >&2
    g++ -O2 -std=c++17 -o "$ns3bin" "$src" -I/usr/include \
        -lns3-core -lns3-network -lns3-internet -lns3-point-to-point \
        -lns3-traffic-control -lns3-applications
fi

htsimbin=
if [ "$htsim" = 1 ]; then
    htsimbin=$(bench/htsim/build.sh | tail -n 1)
fi

now() { date +%s.%N; }

# The core probe (bench/coreprobe.rs) before and after every run: on a VM whose cores
# share their width with other guests, cclab's dumbbell ran 1.6x slower with the clock
# unchanged (docs/speed.md, A probe of the core); a round whose simulators saw different
# probe rates compares different machines.
probebin=$out/coreprobe
if [ ! -x "$probebin" ] || [ bench/coreprobe.rs -nt "$probebin" ]; then
    rustc -O bench/coreprobe.rs -o "$probebin" >&2
fi
probe() { "${pin[@]}" "$probebin" | cut -d' ' -f1; }

# Both simulators run on the same core (RACE_CPU, default 0; RACE_CPU= to not pin), so a
# run does not move between cores or meet the other core's load: unpinned, cclab's event
# loop took 0.49 s in the race against 0.35–0.39 s pinned in the same hour (b3ea7c7).
cpu=${RACE_CPU-0}
pin=()
if [ -n "$cpu" ] && command -v taskset >/dev/null; then
    pin=(taskset -c "$cpu")
fi
build="$build; runs ${pin[*]:-not pinned}"

# Run one contender pinned, its stdout into file $3, with the probe before and after:
# timed NAME ROUND FILE COMMAND... writes $case-NAME-rROUND.proc (start and end) and .probe.
timed() {
    local name=$1 r=$2 file=$3 t0 t1 p0
    shift 3
    p0=$(probe)
    t0=$(now)
    "${pin[@]}" "$@" >"$file"
    t1=$(now)
    echo "$t0 $t1" >"$out/$case-$name-r$r.proc"
    echo "$p0 $(probe)" >"$out/$case-$name-r$r.probe"
}

run_cclab() { # round
    local d=$out/$case-cclab-r$1
    rm -rf "$d"
    timed cclab "$1" "$out/$case-cclab-r$1.json" \
        "$cclab" run "bench/$toml.toml" ${cclabargs[@]+"${cclabargs[@]}"} --out "$d" --quiet --json
    cp "$d/perf.json" "$out/$case-cclab-r$1.perf.json"
    if [ "$case" = dctcp10 ]; then
        "${pin[@]}" "$cclab" bench --json >"$out/bench-r$1.json"
    fi
}

run_ns3() { # round
    timed ns3 "$1" "$out/$case-ns3-r$1.json" "$ns3bin" ${ns3args[@]+"${ns3args[@]}"}
}

run_htsim() { # round
    timed htsim "$1" "$out/$case-htsim-r$1.json" "$htsimbin"
}

who=(cclab ns3)
if [ "$htsim" = 1 ]; then
    who+=(htsim)
fi
echo "== race: $case, $rounds rounds, interleaved, ${pin[*]:-not pinned} (load: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
for r in $(seq 1 "$rounds"); do
    # Who goes first rotates: round 1 cclab, ns-3[, htsim]; round 2 starts with the next.
    n=${#who[@]}
    for i in $(seq 0 $((n - 1))); do
        "run_${who[$(((r - 1 + i) % n))]}" "$r"
    done
    echo "   round $r done" >&2
done

python3 - "$out" "$rounds" "$build" "$case" "$htsim" <<'PY'
import json, statistics, sys

out, rounds, build, case, with_htsim = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5] == "1"
med = statistics.median

def load(path):
    with open(path) as f:
        return json.load(f)

def proc(path):
    a, b = open(path).read().split()
    return float(b) - float(a)

R = range(1, rounds + 1)
cc = [load(f"{out}/{case}-cclab-r{r}.json") for r in R]
cp = [load(f"{out}/{case}-cclab-r{r}.perf.json") for r in R]
cproc = [proc(f"{out}/{case}-cclab-r{r}.proc") for r in R]
# The other simulators: (label, file tag), each run's JSON and whole-process time.
others = [("ns-3", "ns3")] + ([("htsim", "htsim")] if with_htsim else [])
runs = {t: [load(f"{out}/{case}-{t}-r{r}.json") for r in R] for _, t in others}
procs = {t: [proc(f"{out}/{case}-{t}-r{r}.proc") for r in R] for _, t in others}
bench = None
if case == "dctcp10":
    bench = [next(w for w in load(f"{out}/bench-r{r}.json")["workloads"] if w["workload"] == "dctcp10") for r in R]

print(f"cclab {cc[0]['cclab']} (git {cc[0]['git']}) vs "
      f"{' and '.join(runs[t][0]['simulator'] for _, t in others)}: {case}, "
      f"{cc[0]['duration_s']:g} s simulated, {rounds} rounds interleaved")
print(f"cclab built by {build}")

# Equal work: the TOML file is bench's dctcp10, and every round computed the same thing.
if bench:
    same_work = all(p["events"] == b["events"] and p["packet_hops"] == b["packet_hops"] for p, b in zip(cp, bench))
    print(f"bench/dctcp10.toml reproduces `cclab bench` dctcp10 (events {cp[0]['events']:,}, "
          f"packet-hops {cp[0]['packet_hops']:,}): {'yes' if same_work else 'NO'}")
strip = lambda d: {k: v for k, v in d.items() if k not in ("wall_s",)}
same = [f"cclab {'yes' if all(c == cc[0] for c in cc) else 'NO'}"]
same += [f"{n} {'yes' if all(strip(x) == strip(runs[t][0]) for x in runs[t]) else 'NO'}" for n, t in others]
print(f"results identical in every round: {', '.join(same)}")

print("\n== the core probe before and after each run (G instructions/s, bench/coreprobe.rs;"
      " a round whose simulators saw different rates ran on different machines)")
def probes(t, r):
    with open(f"{out}/{case}-{t}-r{r}.probe") as f:
        return [float(x) for x in f.read().split()]
for r in R:
    print(f"{r:>5}  " + "  ".join(f"{t}: " + " → ".join(f"{x:.2f}" for x in probes(t, r))
                               for t in ["cclab"] + [t for _, t in others]))

print("\n== wall time per round (event loop; whole process in brackets)")
head = f"{'round':>5}  {'cclab s':>16}"
for n, _ in others:
    head += f"  {n + ' s':>18}  {n.replace('-', '') + '/cclab':>11}"
print(head + (f"  {'cclab bench s':>13}" if bench else ""))
for i, r in enumerate(R):
    line = f"{r:>5}  {cp[i]['wall_s']:7.3f} ({cproc[i]:6.3f})"
    for _, t in others:
        w = runs[t][i]["wall_s"]
        line += f"  {w:8.2f} ({procs[t][i]:6.2f})  {w / cp[i]['wall_s']:10.1f}x"
    print(line + (f"  {bench[i]['wall_s']:13.3f}" if bench else ""))

cw = med(p["wall_s"] for p in cp)
ch, ce = cp[0]["packet_hops"], cp[0]["events"]
ow = {t: med(x["wall_s"] for x in runs[t]) for _, t in others}
oh = {t: runs[t][0]["packet_hops"] for _, t in others}
oe = {t: runs[t][0]["events"] for _, t in others}
print(f"\n== speed (medians of {rounds} rounds)")
print(f"{'':28}{'cclab':>14}" + "".join(f"{n:>14}" for n, _ in others))
print(f"{'wall, event loop (s)':28}{cw:14.3f}" + "".join(f"{ow[t]:14.3f}" for _, t in others))
print(f"{'wall, whole process (s)':28}{med(cproc):14.3f}" + "".join(f"{med(procs[t]):14.3f}" for _, t in others))
print(f"{'packet-hops':28}{ch:14,}" + "".join(f"{oh[t]:14,}" for _, t in others))
print(f"{'packet-hops/s':28}{ch / cw:14,.0f}" + "".join(f"{oh[t] / ow[t]:14,.0f}" for _, t in others))
print(f"{'events (own kinds)':28}{ce:14,}" + "".join(f"{oe[t]:14,}" for _, t in others))
print(f"{'events/s':28}{ce / cw:14,.0f}" + "".join(f"{oe[t] / ow[t]:14,.0f}" for _, t in others))
for n, t in others:
    short = n.replace("-", "")
    print(f"ratio {short}_wall / cclab_wall (medians): {ow[t] / cw:.1f}x event loop, "
          f"{med(procs[t]) / med(cproc):.1f}x whole process; packet-hops/s cclab / {n} "
          f"{(ch / cw) / (oh[t] / ow[t]):.1f}x")
if bench:
    print(f"(cclab bench's in-process dctcp10, same counts: median {med(b['wall_s'] for b in bench):.3f} s)")

# Results side by side (deterministic: round 1's).
c = cc[0]
o = {t: runs[t][0] for _, t in others}
rev = "recv_up" if case == "incast32" else "bottleneck_rev"  # where the ACKs queue
bq = next(q for q in c["queues"] if q["name"] == "bottleneck")
brev = next(q for q in c["queues"] if q["name"] == rev)
rows = []  # (name, cclab value, {tag: value}, format)
cg = [f["goodput_bps"] for f in c["flows"]]
og = {t: o[t]["flows_goodput_bps"] for t in o}
if len(cg) <= 10:
    for i in range(len(cg)):
        rows.append((f"goodput flow {i} (Mbit/s)", cg[i] / 1e6, {t: og[t][i] / 1e6 for t in o}, "%.1f"))
else:
    # Many flows: each simulator's smallest, median and largest, and Jain's index.
    jain = lambda g: sum(g) ** 2 / (len(g) * sum(x * x for x in g))
    for name, f in (("min", min), ("median", med), ("max", max)):
        rows.append((f"goodput per flow, {name} (Mbit/s)", f(cg) / 1e6, {t: f(og[t]) / 1e6 for t in o}, "%.1f"))
    rows.append(("Jain's fairness index", jain(cg), {t: jain(og[t]) for t in o}, "%.4f"))
each = lambda key, scale=1: {t: o[t][key] / scale for t in o}
rows += [
    ("goodput total (Gbit/s)", sum(cg) / 1e9, each("goodput_bps", 1e9), "%.4f"),
    ("bottleneck mean queue (KB)", bq["mean_bytes"] / 1e3, each("bottleneck_mean_bytes", 1e3), "%.2f"),
    ("  in 1500 B packets", bq["mean_bytes"] / 1500, each("bottleneck_mean_pkts"), "%.2f"),
    ("ECN marks at bottleneck", bq["marks"], each("bottleneck_marks"), "%d"),
    ("drops at bottleneck", bq["drops"], each("bottleneck_drops"), "%d"),
    ("drops, all queues", sum(q["drops"] for q in c["queues"]), each("drops_all_queues"), "%d"),
    ("packets sent on bottleneck", bq["tx_pkts"], each("bottleneck_tx_pkts"), "%d"),
    (f"packets on {rev} (ACKs)", brev["tx_pkts"], each("bottleneck_rev_tx_pkts"), "%d"),
    ("packet-hops", ch, oh, "%d"),
]
print("\n== results side by side")
print(f"{'':34}{'cclab':>14}" + "".join(f"{n:>14}{n + ' vs cclab':>17}" for n, _ in others))
flagged = {t: [] for t in o}
for name, a, bs, fmt in rows:
    line = f"{name:34}{fmt % a:>14}"
    for _, t in others:
        b = bs[t]
        if a == b:
            d = "same"
        elif a == 0:
            d = "n/a"
        else:
            p = (b - a) / a * 100
            d = f"{p:+.2f}%"
            if abs(p) > 5:
                d += "  > 5%"
                flagged[t].append(name)
        line += f"{fmt % b:>14}{d:>17}"
    print(line)
print(f"{'events (not comparable, see below)':34}{ce:>14,}" + "".join(f"{oe[t]:>14,}{oe[t] / ce:>16.2f}x" for _, t in others))
readme = {"ns3": "bench/ns3/README.md", "htsim": "bench/htsim/README.md"}
for n, t in others:
    if flagged[t]:
        print(f"\n{n}: DIFFER BY MORE THAN 5%: {', '.join(flagged[t])} — see {readme[t]} (the "
              "event counts measure each simulator's own event model, not the network).")
    else:
        print(f"\n{n}: no result differs by more than 5% (the event counts measure each simulator's "
              f"own event model, not the network: {readme[t]}).")
PY
